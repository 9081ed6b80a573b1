import { describe, expect, it } from "vitest";
import { WARM_UP_MS, lagsByDueTime } from "../../bench/lib/stats.js";

describe("the bench's lag figures", () => {
  it("split deliveries at the end of hookline's first second by due time, not by arrival", () => {
    const start = 1_000_000;
    const dueOf = new Map([
      ["a", start],
      ["b", start + WARM_UP_MS - 1],
      ["c", start + WARM_UP_MS],
      ["d", start + 2 * WARM_UP_MS],
    ]);
    // "b" was due in the first second but arrived well after it; "x" was never written.
    const record = {
      ids: ["a", "x", "b", "c", "d"],
      times: [
        start + 40,
        start + 50,
        start + WARM_UP_MS + 299,
        start + WARM_UP_MS + 2,
        start + 2 * WARM_UP_MS + 3,
      ],
    };
    const lags = lagsByDueTime(record, dueOf, start + WARM_UP_MS);
    expect(lags.warmUp).toEqual([40, 300]);
    expect(lags.steady).toEqual([2, 3]);
  });

  it("find nothing when the receiver kept no ids", () => {
    expect(lagsByDueTime({ ids: null, times: [1, 2] }, new Map(), 0)).toEqual({
      warmUp: [],
      steady: [],
    });
  });
});
