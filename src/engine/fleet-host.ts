/**
 * The engine's side of a fleet (a store shared with other workers, fleet.ts): which endpoints it
 * is ready to hand back, which to let go of at the next heartbeat, and what it forgets when the
 * others have declared it dead. It reads and changes the engine's holdings; the fleet decides when.
 */
import type { Clock } from "../clock.js";
import type { Heartbeat } from "../store/coordination.js";
import type { FleetHost } from "./fleet.js";
import type { Holdings } from "./holdings.js";
import type { EndpointRuntime } from "./runtime.js";
import type { EndpointRuntimes } from "./runtimes.js";

/** An endpoint handed to another worker is not taken back for this long (no ping-pong). */
const HANDOVER_QUIET_MS = 5_000;

/** What the engine lends its fleet side. */
export interface FleetHostEngine {
  holdings: Holdings;
  runtimes: EndpointRuntimes;
  clock: Clock;
  log: FleetHost["log"];
  /** An endpoint without work in hand for this long is handed back. */
  idleReleaseMs: number;
  /** Whether an outcome of the endpoint's is yet to be committed (see OutcomeWriter). */
  holdsUnwritten(endpointId: string): boolean;
  wake(dueAt?: number): void;
  invalidateEndpoint(endpointId: string): void;
  invalidateApplication(appId: string): void;
  /** Something changed that the claim loop should look at soon. */
  pumpSoon(): void;
}

export function engineFleetHost(e: FleetHostEngine): FleetHost {
  const h = e.holdings;
  const adopt = (ids: readonly string[]): void => {
    for (const id of ids) h.adoptable.add(id);
    e.pumpSoon();
  };
  return {
    log: e.log,
    readyToRelease: () => {
      const ready = { idle: [] as string[], handover: [] as string[] };
      // A claim that started before an endpoint was marked may still bring some of its
      // deliveries: letting it go now could give the endpoint two senders. Only claims that
      // old hold it back; a busy worker's claims follow one another without a gap, so waiting
      // for none to run would keep it from ever handing anything over.
      const oldest = h.oldestClaimRunning();
      // Claimed deliveries on their way to a queue hold their endpoint as queued ones do.
      const arriving = h.arriving();
      // Kept until a heartbeat lets them go (`released`): this is also asked between beats,
      // whether any hand-over is ready, and a heartbeat can fail; dropped then, a stray's owner
      // row stayed for as long as this worker lived. One with a runtime now goes when that falls
      // idle; one pinned again is not let go.
      for (const id of h.strays) {
        if (e.runtimes.get(id) || h.pinned.has(id)) h.strays.delete(id);
        else ready.idle.push(id);
      }
      for (const rt of h.marked) {
        const id = rt.endpoint.id;
        // Forgotten meanwhile (its endpoint deleted, or all dropped on rejoining).
        if (e.runtimes.get(id) !== rt) h.marked.delete(rt);
        else if (!rt.leaving || rt.inFlight > 0 || rt.queue.length > 0 || arriving.has(id)) {
          continue;
        } else if (e.holdsUnwritten(id)) {
          // Its last answers are not in the store yet: a taker would load the endpoint as it was
          // before them (still enabled after a 410 disabled it here).
          continue;
        } else if (rt.throttle && !rt.throttle.isFull()) {
          // The taker's rate-limit bucket starts full: let go of it sooner and the receiver
          // could see this worker's last burst and the taker's first within one bucket's time,
          // past its rate. Once ours is full again, a new one is the same as ours continued.
          continue;
        } else if (oldest > rt.leavingAfterClaim) ready[rt.leaving].push(id);
      }
      return ready;
    },
    handingOver: () => {
      for (const rt of h.marked) if (rt.leaving === "handover") return true;
      return false;
    },
    planReleases: (now, fleet) => planReleases(e, now, fleet),
    handedOver: () => {
      const now = e.clock.now();
      return [...h.handedOver].filter(([, until]) => until > now).map(([id]) => id);
    },
    released: (ids) => {
      const quietUntil = e.clock.now() + HANDOVER_QUIET_MS;
      for (const id of ids) {
        h.strays.delete(id);
        const rt = e.runtimes.get(id);
        if (!rt) continue;
        h.marked.delete(rt);
        if (rt.leaving === "handover") h.handedOver.set(id, quietUntil);
        h.backlogged.delete(rt);
        e.runtimes.delete(id);
        // Taken again, it is loaded afresh, and its application with it: without signals (a
        // pooler that keeps no LISTEN) that is how changed settings reach this worker.
        e.runtimes.forgetApplication(rt.endpoint.appId);
      }
    },
    adopt,
    takeOver: (ids) => {
      // The quiet keeps this worker from taking back what a live taker is about to claim. Once
      // it has declared a worker dead, any endpoint it handed over lately may have gone to that
      // one: freed by the reaping if the dead worker had claimed it, or not even that (it died
      // first, the endpoint owned by nobody) — and this worker cannot tell to whom it went. Kept,
      // the quiet left such an endpoint to nobody past the dead-after time where this worker
      // was the only one left, or every survivor had handed it on. So every quiet ends: a claim
      // takes nothing of an endpoint a live worker owns, and one taken back from a taker that
      // had not claimed it yet is at worst handed over once more (a reap is rare).
      const quiet = [...h.handedOver.keys()];
      h.handedOver.clear();
      adopt([...ids, ...quiet]);
    },
    forgetAll: () => {
      // Every endpoint is forgotten, those with requests out too: the new identity starts
      // from what the store says (circuits included). Requests already out cannot be called
      // back; they finish on the forgotten runtimes and change nothing (see the dispatcher).
      for (const rt of e.runtimes.values()) h.claimed -= rt.queue.splice(0).length;
      e.runtimes.clear();
      h.marked.clear();
      h.handedOver.clear();
      h.claimed -= h.unadmitted.splice(0).length;
      h.backlogged.clear();
      h.adoptable.clear();
    },
    onSignals: (signals) => {
      for (const s of signals) {
        if (s.kind === "wake") e.wake(s.dueAt);
        else if (s.kind === "endpoint") e.invalidateEndpoint(s.id);
        else if (s.kind === "app") e.invalidateApplication(s.id);
        else adopt(s.endpointIds);
      }
    },
    rescan: () => {
      // Changes to endpoints and applications are signalled too: those missed would otherwise
      // hold (an old URL, secret or policy) for as long as this worker keeps the endpoint.
      e.runtimes.invalidateAll();
      e.wake();
    },
  };
}

/**
 * Marks endpoints to let go of at the next heartbeat: those idle for a while, and, when this
 * worker owns more than its share of the fleet's endpoints, the excess (least busy first), so a
 * worker that joins gets work without waiting for endpoints to fall idle.
 */
function planReleases(e: FleetHostEngine, now: number, fleet: Heartbeat): void {
  const kept: EndpointRuntime[] = [];
  // Pinned ones are kept, and count towards this worker's share.
  let pinned = 0;
  for (const rt of e.runtimes.values()) {
    if (rt.leaving) continue;
    if (e.holdings.pinned.has(rt.endpoint.id)) pinned++;
    else if (
      rt.inFlight === 0 &&
      rt.queue.length === 0 &&
      now - rt.lastActiveAt >= e.idleReleaseMs
    ) {
      e.holdings.markLeaving(rt, "idle");
    } else kept.push(rt);
  }
  if (fleet.liveWorkers <= 1) return;
  const excess = pinned + kept.length - Math.ceil(fleet.ownedTotal / fleet.liveWorkers);
  if (excess <= 0) return;
  kept.sort((a, b) => a.inFlight + a.queue.length - (b.inFlight + b.queue.length));
  for (const rt of kept.slice(0, excess)) e.holdings.markLeaving(rt, "handover");
  e.pumpSoon();
}
