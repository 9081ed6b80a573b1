/** A clock that moves only when the test says so; timers fire as it passes their time. */
import type { Clock, TimerHandle } from "../../src/clock.js";

export class FakeClock implements Clock {
  private timers = new Map<number, { at: number; fn: () => void }>();
  private nextId = 1;

  constructor(private t: number = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    // A timer already due fires on the next tick, as a real one would.
    if (ms <= 0) setImmediate(() => this.fireDue());
    return { id };
  }

  clearTimer(handle: TimerHandle): void {
    this.timers.delete(handle.id);
  }

  /** Moves time forward, firing every timer that falls due, in order. */
  advance(ms: number): void {
    this.t += ms;
    this.fireDue();
  }

  /**
   * Sets the wall clock by `ms` (back when negative), as NTP or an operator does, firing nothing:
   * a timer waits its own length whatever the wall clock says, so each stays as far off as it was.
   */
  step(ms: number): void {
    this.t += ms;
    for (const timer of this.timers.values()) timer.at += ms;
  }

  private fireDue(): void {
    const due = [...this.timers.entries()]
      .filter(([, timer]) => timer.at <= this.t)
      .sort((a, b) => a[1].at - b[1].at);
    for (const [id, timer] of due) {
      this.timers.delete(id);
      timer.fn();
    }
  }
}

/**
 * A bare clock for the pure rules (the breaker, the adaptive limit), which only ask it `now()`:
 * its time is `t`, which a test reads and sets, or moves on with `advance`.
 */
export function settableClock(t = 1_700_000_000_000): {
  t: number;
  now(): number;
  advance(ms: number): void;
} {
  return {
    t,
    now(): number {
      return this.t;
    },
    advance(ms: number): void {
      this.t += ms;
    },
  };
}
