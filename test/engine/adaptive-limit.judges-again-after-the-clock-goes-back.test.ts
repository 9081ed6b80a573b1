/**
 * The wall clock can step backwards (an NTP correction, a VM restored). The adaptive limit must
 * not then stay halved until the clock catches up with its last judgement, nor keep judging by
 * samples it recorded "in the future": an endpoint that answers fast again gets its limit back
 * once ten fresh samples show it.
 */
import { describe, expect, it } from "vitest";
import { AdaptiveLimit, DEFAULT_ADAPTIVE } from "../../src/engine/adaptive-limit.js";

const HOUR = 3_600_000;

describe("the adaptive limit when the clock goes back an hour", () => {
  function slowThenBack() {
    const clock = { t: 1_700_000_000_000, now: () => 0 };
    clock.now = () => clock.t;
    const limit = new AdaptiveLimit(16, DEFAULT_ADAPTIVE, clock);
    for (let i = 0; i < 10; i++) {
      clock.t += 100;
      limit.record(5_000);
    }
    expect(limit.effective).toBe(8);
    clock.t -= HOUR;
    return { clock, limit };
  }

  it("doubles back once ten fresh samples are fast", () => {
    const { clock, limit } = slowThenBack();
    for (let i = 0; i < 10; i++) {
      clock.t += 100;
      limit.record(50);
    }
    expect(limit.effective).toBe(16);
  });

  it("halves again on fresh slow samples, not on the ones recorded before the clock went back", () => {
    const { clock, limit } = slowThenBack();
    expect(limit.p99()).toBeNull();
    for (let i = 0; i < 9; i++) {
      clock.t += 100;
      limit.record(50);
    }
    expect(limit.effective).toBe(8);
    expect(limit.p99()).toBe(50);
    clock.t += 100;
    limit.record(6_000);
    expect(limit.effective).toBe(4);
  });
});
