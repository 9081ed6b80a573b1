/**
 * A worker's wall clock may be set back while it runs (NTP correcting it, a VM restored from a
 * snapshot). Its heartbeats must go on every heartbeat interval all the same: a beat planned by
 * the old time waited as long as the step (an hour back, an hour without a heartbeat), so the
 * others declared it dead and took its endpoints while it went on sending to them, unawares
 * until that beat came. A fake clock and a scripted coordination stand in for the database.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Fleet } from "../../src/engine/fleet.js";
import { aStartedFleet, quietCoordination, runFleetClock } from "../support/fleet-host.js";
import { FakeClock } from "../support/fake-clock.js";

const HEARTBEAT_MS = 1_000;
const DEAD_AFTER_MS = 3 * HEARTBEAT_MS;
const HOUR_MS = 3_600_000;

describe("a worker whose wall clock is set back", () => {
  let fleet: Fleet | null = null;
  afterEach(async () => {
    await fleet?.stop(false);
    fleet = null;
  });

  it("beats within a heartbeat interval by the new time, and then every interval", async () => {
    const clock = new FakeClock();
    const beats: number[] = [];
    const coordination = quietCoordination({
      heartbeat: async ({ now }) => {
        beats.push(now);
        return { alive: true, liveWorkers: 1, ownedTotal: 0, ownedByMe: 0, releasedWithWork: [] };
      },
    });
    fleet = await aStartedFleet(coordination, clock, {
      heartbeatMs: HEARTBEAT_MS,
      deadAfterMs: DEAD_AFTER_MS,
    });
    await runFleetClock(clock, 2 * HEARTBEAT_MS + 100);
    expect(beats.length).toBeGreaterThanOrEqual(2);

    clock.step(-HOUR_MS);
    const steppedAt = clock.now();
    beats.length = 0;
    await runFleetClock(clock, 3 * HEARTBEAT_MS + 100);
    // Written by the new time, so the others read them as fresh.
    expect(beats.length).toBeGreaterThanOrEqual(3);
    expect(beats[0]!).toBeLessThanOrEqual(steppedAt + HEARTBEAT_MS + 10);
    for (const at of beats) expect(at).toBeLessThan(steppedAt + 4 * HEARTBEAT_MS);
    // Nor does the worker take itself for unheard (and stop starting requests) meanwhile.
    expect(fleet.silenced(clock.now())).toBe(false);
  });

  it("reaps again the dead-after time after an outage, not the step later", async () => {
    const clock = new FakeClock();
    let down = false;
    const reaps: number[] = [];
    const coordination = quietCoordination({
      heartbeat: async () => {
        if (down) throw new Error("the database went away");
        return { alive: true, liveWorkers: 1, ownedTotal: 0, ownedByMe: 0, releasedWithWork: [] };
      },
      reap: async (now) => {
        reaps.push(now);
        return { workers: [], endpointIds: [], deliveries: 0 };
      },
    });
    fleet = await aStartedFleet(coordination, clock, {
      heartbeatMs: HEARTBEAT_MS,
      deadAfterMs: DEAD_AFTER_MS,
    });
    down = true;
    await runFleetClock(clock, 2 * HEARTBEAT_MS + 100);
    down = false;
    // Back: the first beat through starts the dead-after wait, and the clock is set back then.
    await runFleetClock(clock, HEARTBEAT_MS + 100);
    clock.step(-HOUR_MS);
    reaps.length = 0;
    await runFleetClock(clock, DEAD_AFTER_MS + 3 * HEARTBEAT_MS);
    expect(reaps.length).toBeGreaterThan(0);
  });
});
