/**
 * A beat says this worker is alive, then reaps the dead and looks for due work. When the
 * heartbeat got through and only a later step failed, the worker was heard: it must not start
 * distrusting the others' heartbeats (which stops reaping and makes claims shy of the dead for
 * the dead-after time) nor log a failed heartbeat. The step is tried again at the next beat. A
 * fake clock and a scripted coordination stand in for the database.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Fleet } from "../../src/engine/fleet.js";
import {
  aStartedFleet,
  idleFleetHost,
  quietCoordination,
  runFleetClock,
} from "../support/fleet-host.js";
import { FakeClock } from "../support/fake-clock.js";

const HEARTBEAT_MS = 1_000;
const DEAD_AFTER_MS = 3 * HEARTBEAT_MS;

/** A coordination whose heartbeats get through and whose reaps fail while `failing` says so. */
function coordination(failing: () => boolean) {
  const reaps: number[] = [];
  const fleet = quietCoordination({
    reap: async (now) => {
      reaps.push(now);
      if (failing()) throw new Error("the reap was cancelled");
      return { workers: [], endpointIds: [], deliveries: 0 };
    },
  });
  return { fleet, reaps };
}

describe("a beat whose heartbeat got through but whose reap failed", () => {
  let fleet: Fleet | null = null;
  afterEach(async () => {
    await fleet?.stop(false);
    fleet = null;
  });

  it("keeps trusting the others, says which step failed, and reaps again at the next beat", async () => {
    const clock = new FakeClock();
    let failing = false;
    const c = coordination(() => failing);
    const errors: string[] = [];
    const host = idleFleetHost({
      log: { warn: () => {}, error: (_obj, msg) => errors.push(msg) },
    });
    fleet = await aStartedFleet(
      c.fleet,
      clock,
      { heartbeatMs: HEARTBEAT_MS, deadAfterMs: DEAD_AFTER_MS },
      host,
    );
    failing = true;
    await runFleetClock(clock, 1_500);
    expect(errors).toHaveLength(1);
    expect(errors[0]).not.toMatch(/heartbeat failed/);
    expect(errors[0]).toMatch(/workers that stopped answering/);
    // Claims still treat as dead exactly the workers silent for the dead-after time.
    expect(fleet.claimingWorker(clock.now()).deadBefore).toBe(clock.now() - DEAD_AFTER_MS);
    // The next beat reaps again, the database answering by then.
    failing = false;
    const before = c.reaps.length;
    await runFleetClock(clock, HEARTBEAT_MS);
    expect(c.reaps.length).toBe(before + 1);
    expect(errors).toHaveLength(1);
  });
});
