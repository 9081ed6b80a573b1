import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "../src/clock.js";

const DAY = 86_400_000;

// Node runs a timeout longer than 2^31 - 1 ms (about 24.8 days) after 1 ms instead; the fake
// timers do the same. A bulk replay job scheduled a month ahead arms such a timer.
describe("the system clock's timers", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("run a timer set 30 days ahead 30 days later, not at once", () => {
    const fired = vi.fn();
    systemClock.setTimer(fired, 30 * DAY);
    vi.advanceTimersByTime(1_000);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(30 * DAY - 1_000 - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(60 * DAY);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it("cancel a long timer at any point of its wait", () => {
    const fired = vi.fn();
    const handle = systemClock.setTimer(fired, 60 * DAY);
    vi.advanceTimersByTime(40 * DAY);
    systemClock.clearTimer(handle);
    vi.advanceTimersByTime(30 * DAY);
    expect(fired).not.toHaveBeenCalled();
  });
});
