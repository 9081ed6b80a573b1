/**
 * HOOKLINE_WORKER_DEAD_AFTER_MS must be at least three heartbeats. An operator who raised only the
 * heartbeat (to 5000) was refused naming the other setting, which they had not set, with neither
 * value: they had to look up its default to see why, and work out what would do.
 */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";

describe("a worker's heartbeat and the time after which it is dead", () => {
  it("are refused together with both values and the least that would do", () => {
    expect(() => resolveConfig({ HOOKLINE_WORKER_HEARTBEAT_MS: "5000" })).toThrow(
      "HOOKLINE_WORKER_DEAD_AFTER_MS must be at least three times HOOKLINE_WORKER_HEARTBEAT_MS, so one late heartbeat does not declare a worker dead: it is 10000 (its default) with heartbeats every 5000 ms; set it to 15000 or more, or the heartbeat to 3333 or less",
    );
    expect(() =>
      resolveConfig({ HOOKLINE_WORKER_HEARTBEAT_MS: "400", HOOKLINE_WORKER_DEAD_AFTER_MS: "1000" }),
    ).toThrow(
      ": it is 1000 with heartbeats every 400 ms; set it to 1200 or more, or the heartbeat to 333 or less",
    );
  });

  it("are taken at exactly three heartbeats", () => {
    const c = resolveConfig({
      HOOKLINE_WORKER_HEARTBEAT_MS: "5000",
      HOOKLINE_WORKER_DEAD_AFTER_MS: "15000",
    });
    expect([c.workerHeartbeatMs, c.workerDeadAfterMs]).toEqual([5000, 15000]);
  });
});
