/**
 * A store whose first call of one operation (with matching arguments) waits until the test lets
 * it go, then goes through, or fails as if the database had: for tests of what the engine does
 * while a store call is under way.
 */
import type { Store } from "../../src/store/port.js";

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
  let reachedIt!: () => void;
  const reached = new Promise<void>((r) => (reachedIt = r));
  let let_go!: (failWith?: Error) => void;
  const gate = new Promise<Error | undefined>((r) => (let_go = r));
  let held = false;
  const store: Store = new Proxy(target, {
    get(t, prop, receiver) {
      const value: unknown = Reflect.get(t, prop, receiver);
      if (typeof value !== "function") return value;
      const fn = value as (...args: unknown[]) => Promise<unknown>;
      if (prop !== operation) return fn.bind(t);
      return async (...args: Parameters<Store[K]>) => {
        if (!held && matches(...args)) {
          held = true;
          reachedIt();
          const failure = await gate;
          if (failure) throw failure;
        }
        return fn.apply(t, args);
      };
    },
  });
  return { store, reached, release: (failWith) => let_go(failWith) };
}
