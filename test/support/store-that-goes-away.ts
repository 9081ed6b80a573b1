/**
 * A store that goes away (every call fails as if the database were unreachable) the first time a
 * given operation is called, before that call does anything, and answers again once the test says
 * it is back.
 */
import { StoreUnavailableError } from "../../src/errors.js";
import type { Store } from "../../src/store/port.js";

export interface StoreThatGoesAway {
  store: Store;
  back(): void;
}

export function storeThatGoesAway(target: Store, wentAwayAt: keyof Store): StoreThatGoesAway {
  let away = false;
  let wentAway = false;
  const store = new Proxy(target, {
    get(t, prop, receiver) {
      const value: unknown = Reflect.get(t, prop, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        if (prop === wentAwayAt && !wentAway) away = wentAway = true;
        if (away) throw new StoreUnavailableError("the database is away");
        return (value as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
  return { store, back: () => void (away = false) };
}
