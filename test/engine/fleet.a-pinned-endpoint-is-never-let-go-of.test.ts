/**
 * An endpoint pinned to this worker (a failure drill's, whose receiver only this process can
 * reach) is never let go of while pinned: not when idle, not as the excess over this worker's
 * share, and not when it was marked before the pin. One taken for a pin that never had work here
 * is handed back at the next heartbeat, so it is not kept from other workers for good.
 */
import { expect, it } from "vitest";
import type { FleetHost } from "../../src/engine/fleet.js";
import { anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { engineSideOver } from "../support/fleet-host.js";

const FLEET = { alive: true, liveWorkers: 2, ownedTotal: 2, ownedByMe: 2, releasedWithWork: [] };

async function twoEndpointsHeld() {
  const app = anApplication();
  const [pinned, other] = [anEndpoint(app.id), anEndpoint(app.id)];
  const side = await engineSideOver([pinned, other], app);
  return { ...side, pinned: pinned.id, other: other.id };
}

const released = (host: FleetHost) => {
  const ready = host.readyToRelease();
  return [...ready.idle, ...ready.handover];
};

it("keeps a pinned endpoint past the idle time and over the worker's share", async () => {
  const { clock, host, holdings, runtimes, pinned, other } = await twoEndpointsHeld();
  holdings.pin(pinned, runtimes.get(pinned));
  // Over its share (two of two with two workers): one is handed over, the unpinned one.
  host.planReleases(clock.now(), FLEET);
  expect(released(host)).toEqual([other]);
  // Idle for long: still kept.
  clock.advance(60_000);
  host.planReleases(clock.now(), FLEET);
  expect(released(host)).not.toContain(pinned);
});

it("keeps an endpoint pinned after it was marked to let go of", async () => {
  const { clock, host, holdings, runtimes, pinned } = await twoEndpointsHeld();
  clock.advance(60_000);
  host.planReleases(clock.now(), FLEET);
  expect(runtimes.get(pinned)!.leaving).toBe("idle");
  holdings.pin(pinned, runtimes.get(pinned));
  expect(released(host)).not.toContain(pinned);
  expect(runtimes.get(pinned)!.leaving).toBeNull();
});

it("hands back an endpoint taken for a pin that never had work here, until a heartbeat does", async () => {
  const { host, holdings } = await twoEndpointsHeld();
  holdings.strays.add("ep_never_loaded");
  expect(host.readyToRelease().idle).toEqual(["ep_never_loaded"]);
  // Asked again before a heartbeat let it go (the check between beats for hand-overs ready to
  // go, or a heartbeat that failed): still to hand back. Dropped, its owner row stayed.
  expect(host.readyToRelease().idle).toEqual(["ep_never_loaded"]);
  host.released(["ep_never_loaded"]);
  expect(host.readyToRelease().idle).toEqual([]);
});

it("does not hand back a stray pinned again", async () => {
  const { host, holdings } = await twoEndpointsHeld();
  holdings.strays.add("ep_never_loaded");
  holdings.pin("ep_never_loaded", undefined);
  expect(host.readyToRelease().idle).toEqual([]);
});
