/**
 * A process never acts on its own signals: the engine that raised them has already acted. A
 * worker declared dead joins again under a new id; its signals from then on carry that id, and
 * it must still know them for its own (before, it listened as the old id and heard every one of
 * them again: each wake-up, settings change and released endpoint acted on twice).
 */
import { expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { Fleet } from "../../src/engine/fleet.js";
import { idleFleetHost } from "../support/fleet-host.js";
import type { Signal } from "../../src/store/coordination.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore } from "../support/postgres.js";

const cleanup = useCleanup();

it("does not hear its own signals after joining again under a new id", async () => {
  const shared = await aSharedStore(cleanup);
  const coordination = shared.coordination!;
  const heard: Signal[] = [];
  let rejoined = false;
  const host = idleFleetHost({
    onSignals: (signals) => heard.push(...signals),
    rescan: () => {
      rejoined = true;
    },
  });
  let n = 0;
  const fleet = new Fleet(
    coordination,
    systemClock,
    { heartbeatMs: 50, deadAfterMs: 10_000, idleReleaseMs: 10_000, role: "worker", host: "h" },
    host,
    () => `wkr_self${++n}`,
  );
  await fleet.start();
  cleanup.push(() => fleet.stop(true));

  // Declared dead by the others (as after a long pause): its row is reaped.
  await coordination.reap(Date.now(), Date.now() + 60_000);
  await expect.poll(() => rejoined, { timeout: 10_000 }).toBe(true);
  expect(fleet.id).toBe("wkr_self2");

  await fleet.publish([{ kind: "wake", dueAt: 1 }]);
  // Another process's signal, sent after: once it is heard, the first would have been too.
  await coordination.publish("wkr_other", [{ kind: "wake", dueAt: 2 }]);
  await expect.poll(() => heard.length, { timeout: 10_000 }).toBeGreaterThan(0);
  expect(heard).toEqual([{ kind: "wake", dueAt: 2 }]);
}, 30_000);
