/** Changing a stored endpoint, application or event type without undoing a change made meanwhile. */
import { setTimeout as sleep } from "node:timers/promises";
import type { Clock } from "../clock.js";
import type { Application, Endpoint, EventType } from "../domain/types.js";
import { ConflictError } from "../errors.js";
import type { Store } from "../store/port.js";
import { applicationKeysGivenUp, archivingKeys, endpointKeysGivenUp } from "./idempotency.js";

/** The 409 a change answers when it keeps losing the race, as the API's description says it. */
export const RACED = "Changed by other writes meanwhile, five times in a row; send it again";

/** Reads before giving up; each lost race means another write landed, so a few suffice. */
const TRIES = 5; // RACED says five

/**
 * The longest pause after the first lost race, in ms; it doubles after each. Writers in other
 * processes (a fleet's API processes) that lost together and read again at once would mostly
 * lose together again; a random pause spreads them out. Wall time, not the injected clock: it
 * paces writers to the database, which a test's fake clock does not move.
 */
const FIRST_PAUSE_MS = 5;

type Deps = { store: Store; clock: Clock };
type Change<T> = (current: T, updatedAt: number) => T | Promise<T>;
/**
 * Writes `next` over the row as `before` read it; false, writing nothing, once it is not so.
 * `before` also tells what else the write does in its transaction (the keys of a uid given up).
 */
type Write<T> = (next: T, before: T) => Promise<boolean>;

/**
 * The change running for each row, by key, over each store in this process. Changes to one row
 * made at once over one store take turns: each would otherwise lose to the others' writes (on
 * PostgreSQL, 10 of 20 PATCHes sent at once to one endpoint were refused 409), its tries spent
 * on races it never needed to run. Other processes' writes are still caught by `write`'s check.
 */
const running = new WeakMap<Store, Map<string, Promise<unknown>>>();

async function inTurn<R>(store: Store, key: string, fn: () => Promise<R>): Promise<R> {
  let turns = running.get(store);
  if (!turns) running.set(store, (turns = new Map()));
  const mine = (turns.get(key) ?? Promise.resolve()).then(fn, fn);
  const settled = mine.catch(() => undefined);
  turns.set(key, settled);
  try {
    return await mine;
  } finally {
    if (turns.get(key) === settled) turns.delete(key);
  }
}

/**
 * Reads the row, makes the change, and writes it only if nothing wrote the row in between
 * (`write` refuses when the stored `updatedAt` is no longer the one `before` was read with);
 * otherwise it reads again and makes the change anew, checks and all, on what is there now.
 * `change` gets the `updatedAt` to set, always past the one read, so two writes in one millisecond
 * are still told apart. A read that finds the row gone throws, as `read` does.
 */
async function changeStored<T extends { updatedAt: number }>(
  clock: Clock,
  read: () => Promise<T>,
  change: Change<T>,
  write: Write<T>,
): Promise<{ before: T; after: T }> {
  for (let i = 0; i < TRIES; i++) {
    const before = await read();
    const after = await change(before, Math.max(clock.now(), before.updatedAt + 1));
    if (await write(after, before)) return { before, after };
    if (i < TRIES - 1) await sleep(Math.random() * FIRST_PAUSE_MS * 2 ** i);
  }
  throw new ConflictError(RACED);
}

/**
 * The change function for rows that `write` (picked from the store) stores, which `keyOf` tells
 * apart. The row is read once to learn its key (the caller may name it by uid), then changed in
 * its turn.
 */
const changerFor =
  <T extends { updatedAt: number }>(
    keyOf: (row: T) => string,
    write: (store: Store, clock: Clock) => Write<T>,
  ) =>
  async (deps: Deps, read: () => Promise<T>, change: Change<T>) =>
    inTurn(deps.store, keyOf(await read()), () =>
      changeStored(deps.clock, read, change, write(deps.store, deps.clock)),
    );

/**
 * An endpoint's change that another request (a rotation beside a URL change), or the engine
 * disabling the endpoint after a 410, cannot undo nor be undone by. A change that may give up the
 * endpoint's uid (a PUT or PATCH) names its application (`owner`; null for an operational webhook
 * endpoint): when it does give it up, the idempotency keys taken under the uid are forgotten in
 * the same transaction, as an application's are.
 */
export const changeEndpoint = (
  deps: Deps,
  read: () => Promise<Endpoint>,
  change: Change<Endpoint>,
  owner?: Application | null,
) =>
  changerFor<Endpoint>(
    (ep) => `endpoint ${ep.id}`,
    (s, clock) => (next, before) =>
      s.updateEndpoint(
        next,
        before.updatedAt,
        owner === undefined ? null : endpointKeysGivenUp(owner, before, next, clock.now()),
      ),
  )(deps, read, change);

/**
 * An application's change that another made at once cannot undo nor be undone by. One that gives
 * up the application's uid forgets, in the same transaction, the idempotency keys taken under it:
 * forgotten after, a store that failed in between would leave them to answer for the application
 * that takes the uid next.
 */
export const changeApplication = changerFor<Application>(
  (app) => `application ${app.id}`,
  (s) => (next, before) =>
    s.updateApplication(next, before.updatedAt, applicationKeysGivenUp(before, next)),
);

/**
 * An event type's change (a patch beside an archive) that another cannot undo nor be undone by.
 * One that archives it forgets its creation's idempotency keys as it is written (see
 * {@link archivingKeys}).
 */
export const changeEventType = changerFor<EventType>(
  (et) => `event type ${et.name}`,
  (s) => (next, before) => s.updateEventType(next, before.updatedAt, archivingKeys(before, next)),
);
