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

/** The wall clock, with Node timers that do not keep the process alive on their own. */
export const systemClock: Clock = (() => {
  const timers = new Map<number, NodeJS.Timeout>();
  let next = 1;
  return {
    now: () => Date.now(),
    setTimer(fn, ms) {
      const id = next++;
      const t = setTimeout(
        () => {
          timers.delete(id);
          fn();
        },
        Math.max(0, ms),
      );
      timers.set(id, t);
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
