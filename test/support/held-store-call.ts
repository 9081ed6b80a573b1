/**
 * A store whose first call of one operation (with matching arguments) waits until the test lets
 * it go, then goes through, or fails as if the database had: for tests of what the engine does
 * while a store call is under way. `holdFirstAnswer` holds the answer instead: the call is made
 * at once (its statement runs, its write is kept) and its caller hears of it only when let go, as
 * when a statement is on its way to the database when something else happens.
 */
import type { Store } from "../../src/store/port.js";
import { withOverrides } from "./overrides.js";

export interface HeldCall {
  /** The store to hand to the code under test. */
  store: Store;
  /** Resolves once the held call has been made. */
  reached: Promise<void>;
  /** Lets the held call go on; with an error, it fails with it instead. */
  release(failWith?: Error): void;
}

type Operation = {
  [K in keyof Store]: Store[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof Store];

export function holdFirstCall<K extends Operation>(
  target: Store,
  operation: K,
  matches: (...args: Parameters<Store[K]>) => boolean = () => true,
): HeldCall {
  return hold(target, operation, matches, false);
}

/** As {@link holdFirstCall}, but the call is made at once and its answer held (module comment). */
export function holdFirstAnswer<K extends Operation>(
  target: Store,
  operation: K,
  matches: (...args: Parameters<Store[K]>) => boolean = () => true,
): HeldCall {
  return hold(target, operation, matches, true);
}

/** The first matching call held before it is made, or (`answerFirst`) after, its answer kept. */
function hold<K extends Operation>(
  target: Store,
  operation: K,
  matches: (...args: Parameters<Store[K]>) => boolean,
  answerFirst: boolean,
): HeldCall {
  let reachedIt!: () => void;
  const reached = new Promise<void>((r) => (reachedIt = r));
  let let_go!: (failWith?: Error) => void;
  const gate = new Promise<Error | undefined>((r) => (let_go = r));
  let holding = false;
  const call = target[operation] as (...args: Parameters<Store[K]>) => ReturnType<Store[K]>;
  const held = async (...args: Parameters<Store[K]>) => {
    if (holding || !matches(...args)) return call.apply(target, args);
    holding = true;
    const answer = answerFirst ? await call.apply(target, args) : undefined;
    reachedIt();
    const failure = await gate;
    if (failure) throw failure;
    return answerFirst ? answer : call.apply(target, args);
  };
  const store = withOverrides<Store>(target, { [operation]: held } as Partial<Store>);
  return { store, reached, release: (failWith) => let_go(failWith) };
}
