/**
 * The fleet's hand-over timing, with a fake clock and a scripted coordination: an endpoint ready
 * to go is freed within one 25 ms look rather than at the next heartbeat, and while heartbeats
 * fail the worker tries again at its heartbeat, not at every look (no flood of errors).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Fleet, FleetHost } from "../../src/engine/fleet.js";
import {
  aStartedFleet,
  idleFleetHost,
  quietCoordination,
  runFleetClock,
} from "../support/fleet-host.js";
import type { Heartbeat, WorkerCoordination } from "../../src/store/coordination.js";
import { FakeClock } from "../support/fake-clock.js";

const HEARTBEAT_MS = 1_000;

/** A coordination whose heartbeats are counted, and fail while `failing` says so. */
function coordination(failing: () => boolean) {
  const beats: { at: number; release: readonly string[] }[] = [];
  const fleet = quietCoordination({
    heartbeat: async (req): Promise<Heartbeat> => {
      beats.push({ at: req.now, release: req.release });
      if (failing()) throw new Error("the database is away");
      return { alive: true, liveWorkers: 2, ownedTotal: 2, ownedByMe: 1, releasedWithWork: [] };
    },
  });
  return { fleet, beats };
}

/** A host with one endpoint marked for hand-over, ready to go once `ready` says so. */
function host(ready: () => boolean) {
  const errors: string[] = [];
  let marked = true;
  const h = idleFleetHost({
    readyToRelease: () => ({ idle: [], handover: marked && ready() ? ["ep_1"] : [] }),
    handingOver: () => marked,
    released: (ids) => {
      if (ids.includes("ep_1")) marked = false;
    },
    log: { warn: () => {}, error: (_obj, msg) => errors.push(msg) },
  });
  return { host: h, errors };
}

describe("a worker handing an endpoint over", () => {
  let fleet: Fleet | null = null;
  afterEach(async () => {
    await fleet?.stop(false);
    fleet = null;
  });

  const start = async (c: WorkerCoordination, h: FleetHost, clock: FakeClock) => {
    fleet = await aStartedFleet(
      c,
      clock,
      { heartbeatMs: HEARTBEAT_MS, deadAfterMs: 3 * HEARTBEAT_MS },
      h,
    );
  };

  it("frees it within a look of it being ready, not at the next heartbeat", async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    let readyAt = Number.POSITIVE_INFINITY;
    const c = coordination(() => false);
    const h = host(() => clock.now() >= readyAt);
    await start(c.fleet, h.host, clock);
    await runFleetClock(clock, 300);
    expect(c.beats).toEqual([]);
    readyAt = clock.now();
    await runFleetClock(clock, 50);
    expect(c.beats).toHaveLength(1);
    expect(c.beats[0]!.release).toEqual(["ep_1"]);
    expect(c.beats[0]!.at - readyAt).toBeLessThanOrEqual(25);
    // The regular heartbeat still comes on time.
    await runFleetClock(clock, HEARTBEAT_MS);
    expect(c.beats.map((b) => b.at - t0)).toEqual([c.beats[0]!.at - t0, HEARTBEAT_MS]);
  });

  it("tries again at its heartbeat, not at every look, while heartbeats fail", async () => {
    const clock = new FakeClock();
    let failing = true;
    const c = coordination(() => failing);
    const h = host(() => true);
    await start(c.fleet, h.host, clock);
    await runFleetClock(clock, 3 * HEARTBEAT_MS);
    // The first look frees nothing (its heartbeat fails); then only the regular heartbeats.
    expect(c.beats.length).toBeLessThanOrEqual(4);
    expect(h.errors.length).toBe(c.beats.length);
    failing = false;
    await runFleetClock(clock, HEARTBEAT_MS);
    expect(c.beats.at(-1)!.release).toEqual(["ep_1"]);
  });
});
