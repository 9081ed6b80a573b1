/** A source of time and timers; injected so rules and the engine can run on a fake clock in tests. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds of this clock's time. */
  setTimer(fn: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

export interface TimerHandle {
  readonly id: number;
}

/** The longest wait one Node timeout takes (2^31 - 1 ms, about 24.8 days); past it, Node waits 1 ms. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The wall clock, with Node timers that do not keep the process alive on their own. */
export const systemClock: Clock = (() => {
  const timers = new Map<number, NodeJS.Timeout>();
  let next = 1;
  return {
    now: () => Date.now(),
    setTimer(fn, ms) {
      const id = next++;
      // A longer wait is taken in steps: Node would run it after 1 ms (a bulk replay job
      // scheduled a month ahead then looked for due jobs a thousand times a second).
      const arm = (left: number) => {
        const t = setTimeout(
          () => {
            if (left > MAX_TIMEOUT_MS) return arm(left - MAX_TIMEOUT_MS);
            timers.delete(id);
            fn();
          },
          Math.min(left, MAX_TIMEOUT_MS),
        );
        timers.set(id, t);
      };
      arm(Math.max(0, ms));
      return { id };
    },
    clearTimer(handle) {
      const t = timers.get(handle.id);
      if (t) {
        clearTimeout(t);
        timers.delete(handle.id);
      }
    },
  };
})();

/** A random source in [0, 1); injected so jitter is reproducible in tests. */
export type Random = () => number;
