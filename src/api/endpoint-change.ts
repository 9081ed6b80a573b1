/** Changing a stored endpoint without undoing a change made meanwhile. */
import type { Clock } from "../clock.js";
import type { Endpoint } from "../domain/types.js";
import { ConflictError } from "../errors.js";
import type { Store } from "../store/port.js";

/** The 409 a change answers when it keeps losing the race, as the API's description says it. */
export const RACED =
  "The endpoint was changed by other writes meanwhile, five times in a row; send it again";

/** Reads before giving up; each lost race means another write landed, so a few suffice. */
const TRIES = 5; // RACED says five

/**
 * Reads the endpoint, makes the change, and writes it only if nothing wrote the endpoint in
 * between: another request (a rotation beside a URL change), or the engine disabling it after a
 * 410. Otherwise it reads again and makes the change anew. `change` gets the `updatedAt` to set,
 * always past the one read, so two writes in one millisecond are still told apart. A read that
 * finds the endpoint gone throws, as `read` does.
 */
export async function changeEndpoint(
  deps: { store: Store; clock: Clock },
  read: () => Promise<Endpoint>,
  change: (ep: Endpoint, updatedAt: number) => Endpoint,
): Promise<{ before: Endpoint; after: Endpoint }> {
  for (let i = 0; i < TRIES; i++) {
    const before = await read();
    const after = change(before, Math.max(deps.clock.now(), before.updatedAt + 1));
    if (await deps.store.updateEndpoint(after, before.updatedAt)) return { before, after };
  }
  throw new ConflictError(RACED);
}
