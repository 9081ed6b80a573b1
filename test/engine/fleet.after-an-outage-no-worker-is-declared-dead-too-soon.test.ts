/**
 * After a database outage longer than the dead-after time every worker's heartbeat is old, the
 * live ones' included. The first worker to get through again must not reap the others, nor claim
 * as if they were dead, until each has had a full dead-after window to beat again. A fake clock
 * and a scripted coordination stand in for the database.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Fleet } from "../../src/engine/fleet.js";
import {
  aStartedFleet,
  idleFleetHost,
  quietCoordination,
  runFleetClock,
} from "../support/fleet-host.js";
import type { Heartbeat } from "../../src/store/coordination.js";
import { FakeClock } from "../support/fake-clock.js";

const HEARTBEAT_MS = 1_000;
const DEAD_AFTER_MS = 3 * HEARTBEAT_MS;

/** A coordination that fails while `failing` says so and records heartbeats and reaps. */
function coordination(failing: () => boolean) {
  const beats: number[] = [];
  const reaps: { at: number; deadBefore: number }[] = [];
  const fleet = quietCoordination({
    heartbeat: async (req): Promise<Heartbeat> => {
      beats.push(req.now);
      if (failing()) throw new Error("the database is away");
      return { alive: true, liveWorkers: 2, ownedTotal: 2, ownedByMe: 1, releasedWithWork: [] };
    },
    reap: async (now, deadBefore) => {
      reaps.push({ at: now, deadBefore });
      return { workers: [], endpointIds: [], deliveries: 0 };
    },
  });
  return { fleet, beats, reaps };
}

const host = idleFleetHost();

describe("a worker whose heartbeats failed for longer than the dead-after time", () => {
  let fleet: Fleet | null = null;
  afterEach(async () => {
    await fleet?.stop(false);
    fleet = null;
  });

  it("reaps nobody and claims from nobody live until dead-after has passed since it got through", async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    let failing = false;
    const c = coordination(() => failing);
    fleet = await aStartedFleet(
      c.fleet,
      clock,
      { heartbeatMs: HEARTBEAT_MS, deadAfterMs: DEAD_AFTER_MS },
      host,
    );
    await runFleetClock(clock, 1_500);
    // One good beat at t0 + 1 s; then the database goes away for five beats.
    const lastGood = c.beats.at(-1)!;
    failing = true;
    await runFleetClock(clock, 5 * HEARTBEAT_MS);
    failing = false;
    c.reaps.length = 0;
    // Claims until dead-after has passed since the first good beat: another worker that beat
    // at most one heartbeat before the outage still counts as alive.
    const claims: { at: number; deadBefore: number }[] = [];
    let firstGood: number | null = null;
    while (clock.now() - t0 < 15 * HEARTBEAT_MS) {
      await runFleetClock(clock, 100);
      firstGood ??= c.beats.find((at) => at > lastGood + 5 * HEARTBEAT_MS - 1) ?? null;
      claims.push({ at: clock.now(), deadBefore: fleet.claimingWorker(clock.now()).deadBefore });
    }
    expect(firstGood).not.toBeNull();
    const trustedFrom = firstGood! + DEAD_AFTER_MS;
    expect(c.reaps.filter((r) => r.at < trustedFrom)).toEqual([]);
    expect(c.reaps.length).toBeGreaterThan(0);
    for (const claim of claims.filter((cl) => cl.at < trustedFrom)) {
      expect(claim.deadBefore).toBeLessThanOrEqual(lastGood - HEARTBEAT_MS);
    }
    // Afterwards, the usual rule again.
    const last = claims.at(-1)!;
    expect(last.deadBefore).toBe(last.at - DEAD_AFTER_MS);
  });
});
