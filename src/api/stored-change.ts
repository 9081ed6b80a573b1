/** Changing a stored endpoint, application or event type without undoing a change made meanwhile. */
import type { Clock } from "../clock.js";
import type { Application, Endpoint, EventType } from "../domain/types.js";
import { ConflictError } from "../errors.js";
import type { Store } from "../store/port.js";

/** The 409 a change answers when it keeps losing the race, as the API's description says it. */
export const RACED = "Changed by other writes meanwhile, five times in a row; send it again";

/** Reads before giving up; each lost race means another write landed, so a few suffice. */
const TRIES = 5; // RACED says five

type Deps = { store: Store; clock: Clock };
type Change<T> = (current: T, updatedAt: number) => T | Promise<T>;

/**
 * Reads the row, makes the change, and writes it only if nothing wrote the row in between
 * (`write` refuses when the stored `updatedAt` is no longer `seenAt`); otherwise it reads again
 * and makes the change anew, checks and all, on what is there now. `change` gets the `updatedAt`
 * to set, always past the one read, so two writes in one millisecond are still told apart. A read
 * that finds the row gone throws, as `read` does.
 */
async function changeStored<T extends { updatedAt: number }>(
  clock: Clock,
  read: () => Promise<T>,
  change: Change<T>,
  write: (next: T, seenAt: number) => Promise<boolean>,
): Promise<{ before: T; after: T }> {
  for (let i = 0; i < TRIES; i++) {
    const before = await read();
    const after = await change(before, Math.max(clock.now(), before.updatedAt + 1));
    if (await write(after, before.updatedAt)) return { before, after };
  }
  throw new ConflictError(RACED);
}

/** The change function for rows that `write` (picked from the store) stores. */
const changerFor =
  <T extends { updatedAt: number }>(
    write: (store: Store) => (next: T, seenAt: number) => Promise<boolean>,
  ) =>
  (deps: Deps, read: () => Promise<T>, change: Change<T>) =>
    changeStored(deps.clock, read, change, write(deps.store));

/**
 * An endpoint's change that another request (a rotation beside a URL change), or the engine
 * disabling the endpoint after a 410, cannot undo nor be undone by.
 */
export const changeEndpoint = changerFor<Endpoint>((s) => (next, at) => s.updateEndpoint(next, at));

/** An application's change that another made at once cannot undo nor be undone by. */
export const changeApplication = changerFor<Application>(
  (s) => (next, at) => s.updateApplication(next, at),
);

/** An event type's change (a patch beside an archive) that another cannot undo nor be undone by. */
export const changeEventType = changerFor<EventType>(
  (s) => (next, at) => s.updateEventType(next, at),
);
