/**
 * Stores shared by several worker processes: endpoint ownership through claims, heartbeats,
 * reaping dead workers, handing endpoints back, and signals between processes. Two workers are
 * two ids on one store here; the multi-process tests run real processes.
 */
import { describe, expect, it } from "vitest";
import { SCAN_START, type ClaimedDelivery, type Store } from "../../../src/store/port.js";
import type { Signal, WorkerCoordination } from "../../../src/store/coordination.js";
import {
  accept,
  anAlert,
  HOUR,
  MINUTE,
  outcomeFor,
  saveAlerts,
  SECOND,
  seedApp,
  succeeded,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";

const NOW = T0 + HOUR;

function coordinationOf(store: Store): WorkerCoordination {
  if (!store.coordination) throw new Error("this store is not shared");
  return store.coordination;
}

async function join(store: Store, id: string, now = NOW): Promise<void> {
  await coordinationOf(store).register({ id, role: "worker", host: "test", now });
}

function claimAs(
  store: Store,
  worker: string,
  opts: { now?: number; limit?: number; endpointId?: string; contended?: string[] } = {},
): Promise<ClaimedDelivery[]> {
  const now = opts.now ?? NOW;
  return store.claimDue({
    now,
    limit: opts.limit ?? 100,
    excludeEndpoints: [],
    leaseUntil: now + MINUTE,
    endpointId: opts.endpointId,
    worker: {
      id: worker,
      deadBefore: now - 10 * SECOND,
      onContended: (ids) => opts.contended?.push(...ids),
    },
  });
}

export function coordinationBehaviour(t: StoreUnderTest): void {
  describe("several workers sharing the store", () => {
    it("a claim makes the claimer the endpoint's owner; another live worker passes it over", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}]);
      await join(t.store, "wkr_a");
      await join(t.store, "wkr_b");
      for (let i = 0; i < 4; i++) await accept(t.store, app.id, { now: T0 + i });
      const a = await claimAs(t.store, "wkr_a", { limit: 2 });
      expect(a).toHaveLength(2);
      // B finds the other two due, but they belong to an endpoint A owns.
      expect(await claimAs(t.store, "wkr_b")).toEqual([]);
      expect(await claimAs(t.store, "wkr_b", { endpointId: endpoints[0]!.id })).toEqual([]);
      // A takes the rest, through the due index or the endpoint's own.
      expect(await claimAs(t.store, "wkr_a", { endpointId: endpoints[0]!.id })).toHaveLength(2);
    });

    it("a worker's scan passes over another live worker's endpoint to a free one", async () => {
      const { app, endpoints } = await seedApp(t.store, [{ channels: ["a"] }, { channels: ["b"] }]);
      const [ofA, free] = endpoints.map((e) => e.id) as [string, string];
      await join(t.store, "wkr_a");
      await join(t.store, "wkr_b");
      for (let i = 0; i < 3; i++) await accept(t.store, app.id, { channels: ["a"], now: T0 + i });
      await accept(t.store, app.id, { channels: ["b"], now: T0 + 5 });
      expect(await claimAs(t.store, "wkr_a", { endpointId: ofA, limit: 1 })).toHaveLength(1);
      const scan = await t.store.scanDue({
        now: NOW,
        limit: 10,
        excludeEndpoints: [],
        leaseUntil: NOW + MINUTE,
        from: SCAN_START,
        worker: { id: "wkr_b", deadBefore: NOW - 10 * SECOND, onContended: () => undefined },
      });
      expect(scan.claimed.map((d) => d.endpointId)).toEqual([free]);
      expect(scan.reached).toBeNull();
    });

    it("workers at once never split one endpoint's deliveries between them", async () => {
      const { app } = await seedApp(t.store, [{}, {}, {}, {}, {}]);
      const workers = ["wkr_a", "wkr_b", "wkr_c"];
      for (const w of workers) await join(t.store, w);
      for (let i = 0; i < 60; i++) await accept(t.store, app.id, { now: T0 + i });
      const owner = new Map<string, string>();
      const seen = new Set<string>();
      for (let round = 0; round < 6; round++) {
        const claims = await Promise.all(workers.map((w) => claimAs(t.store, w, { limit: 7 })));
        claims.forEach((claimed, i) => {
          for (const d of claimed) {
            expect(seen.has(d.id)).toBe(false);
            seen.add(d.id);
            const first = owner.get(d.endpointId) ?? workers[i]!;
            expect(first).toBe(workers[i]);
            owner.set(d.endpointId, first);
          }
        });
      }
      // Every delivery was claimed, each endpoint's by one worker only.
      for (const w of workers) {
        for (const ep of owner.keys()) {
          if (owner.get(ep) === w)
            await claimAs(t.store, w, { endpointId: ep }).then((c) => {
              for (const d of c) seen.add(d.id);
            });
        }
      }
      expect(seen.size).toBe(5 * 60);
    });

    it("a dead worker's endpoints and claimed deliveries go to the others", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}]);
      const c = coordinationOf(t.store);
      await join(t.store, "wkr_dead", NOW - MINUTE);
      await join(t.store, "wkr_live");
      for (let i = 0; i < 3; i++) await accept(t.store, app.id, { now: T0 + i });
      const held = await claimAs(t.store, "wkr_dead", { now: NOW - MINUTE, limit: 2 });
      expect(held).toHaveLength(2);
      // Its heartbeat is a minute old, but until a reaping declares it dead the endpoint stays
      // its own: its heartbeat may yet land, and it would go on sending what it holds.
      expect(await claimAs(t.store, "wkr_live")).toEqual([]);
      expect(await claimAs(t.store, "wkr_live", { endpointId: endpoints[0]!.id })).toEqual([]);
      expect(await c.orphans(NOW, 10)).toEqual([]);
      // Reaping frees the endpoint and puts what it had claimed back, due now.
      const reaped = await c.reap(NOW, NOW - 10 * SECOND);
      expect(reaped.workers).toEqual(["wkr_dead"]);
      expect(reaped.endpointIds).toEqual([endpoints[0]!.id]);
      expect(reaped.deliveries).toBe(2);
      for (const d of held) expect((await t.store.getDelivery(d.id))?.state).toBe("pending");
      const again = await claimAs(t.store, "wkr_live", { endpointId: endpoints[0]!.id });
      expect(again).toHaveLength(3);
      expect(again.map((d) => d.id)).toEqual(expect.arrayContaining(held.map((d) => d.id)));
      // A reaped worker learns it at its next heartbeat.
      const hb = await c.heartbeat({
        id: "wkr_dead",
        now: NOW,
        deadBefore: NOW - 10 * SECOND,
        release: [],
        inTransit: [],
      });
      expect(hb.alive).toBe(false);
      // What it still had out ends late: its outcomes and releases leave the new owner's claim
      // alone, whether recorded in the plain batch, with a dead letter, or put back.
      // The store says it kept none of them, so the reaped worker announces none.
      const [first, second] = held as [ClaimedDelivery, ClaimedDelivery];
      const none = { kept: [], changes: [] };
      expect(await t.store.recordAttempts([succeeded(first, NOW)])).toEqual(none);
      expect(
        await t.store.recordAttempts([
          outcomeFor(second, {
            at: NOW,
            next: { kind: "dead", failureClass: "permanent", reason: "x" },
          }),
        ]),
      ).toEqual(none);
      await t.store.releaseDeliveries(
        held.map((d) => ({ deliveryId: d.id, at: NOW, claimedBy: d.claimedBy })),
      );
      for (const d of held) {
        const row = await t.store.getDelivery(d.id);
        expect(row).toMatchObject({ state: "inflight", attemptCount: 0 });
      }
      // The new owner's outcomes still count.
      const kept = await t.store.recordAttempts(again.map((d) => succeeded(d, NOW + 1)));
      expect(kept.kept.sort()).toEqual(again.map((d) => d.id).sort());
      for (const d of held) expect((await t.store.getDelivery(d.id))?.state).toBe("succeeded");
    });

    it("a worker without a row claims nothing: reaped, or not registered yet", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}]);
      const c = coordinationOf(t.store);
      await join(t.store, "wkr_paused", NOW - MINUTE);
      await join(t.store, "wkr_live");
      await c.reap(NOW, NOW - 10 * SECOND);
      await accept(t.store, app.id, { now: T0 });
      // A paused worker that has not yet learnt it was reaped, and one joining again whose
      // registration is on its way: a claim by either could be put back by a reaping at once,
      // while it sends.
      for (const worker of ["wkr_paused", "wkr_joining"]) {
        expect(await claimAs(t.store, worker)).toEqual([]);
        expect(await claimAs(t.store, worker, { endpointId: endpoints[0]!.id })).toEqual([]);
      }
      expect(await c.orphans(NOW, 10)).toEqual([endpoints[0]!.id]);
      expect(await claimAs(t.store, "wkr_live")).toHaveLength(1);
    });

    it("a heartbeat keeps a worker alive, counts the fleet and hands endpoints back", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const c = coordinationOf(t.store);
      await join(t.store, "wkr_a");
      await join(t.store, "wkr_b");
      for (let i = 0; i < 2; i++) await accept(t.store, app.id, { now: T0 + i });
      const [first, second] = endpoints.map((e) => e.id);
      expect(await claimAs(t.store, "wkr_a", { endpointId: first })).toHaveLength(2);
      expect(await claimAs(t.store, "wkr_a", { endpointId: second, limit: 1 })).toHaveLength(1);
      const hb = await c.heartbeat({
        id: "wkr_a",
        now: NOW + SECOND,
        deadBefore: NOW - 9 * SECOND,
        release: endpoints.map((e) => e.id),
        inTransit: [],
      });
      expect(hb).toMatchObject({ alive: true, liveWorkers: 2, ownedByMe: 0, ownedTotal: 0 });
      // One endpoint still had a due delivery nobody claimed: it is reported for others to take.
      expect(hb.releasedWithWork).toEqual([second]);
      const b = await claimAs(t.store, "wkr_b", { endpointId: hb.releasedWithWork[0]! });
      expect(b).toHaveLength(1);
    });

    it("an endpoint handed over counts once in the fleet until taken, and once after", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}, {}]);
      const c = coordinationOf(t.store);
      await join(t.store, "wkr_a");
      await join(t.store, "wkr_b");
      await accept(t.store, app.id, { now: T0 });
      await accept(t.store, app.id, { now: T0 + 1 });
      const [kept, handed, idle] = endpoints.map((e) => e.id);
      for (const id of [kept, handed, idle]) {
        expect(await claimAs(t.store, "wkr_a", { endpointId: id, limit: 1 })).toHaveLength(1);
      }
      const beat = (release: string[], inTransit: string[]) =>
        c.heartbeat({ id: "wkr_a", now: NOW, deadBefore: NOW - SECOND, release, inTransit });
      // One handed over, one let go for good: the one on its way to B still counts.
      const freeing = await beat([handed!, idle!], [handed!]);
      expect(freeing).toMatchObject({ ownedTotal: 2, ownedByMe: 1 });
      // Not taken yet.
      expect(await beat([], [handed!])).toMatchObject({ ownedTotal: 2, ownedByMe: 1 });
      // Taken: B's now, and counted once.
      expect(await claimAs(t.store, "wkr_b", { endpointId: handed })).toHaveLength(1);
      expect(await beat([], [handed!])).toMatchObject({ ownedTotal: 2, ownedByMe: 1 });
    });

    it("a deleted endpoint is nobody's any more, so it no longer counts in the fleet's share", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const c = coordinationOf(t.store);
      await join(t.store, "wkr_a");
      await join(t.store, "wkr_b");
      await accept(t.store, app.id, { now: T0 });
      const [kept, deleted] = endpoints.map((e) => e.id) as [string, string];
      for (const endpointId of [kept, deleted]) {
        expect(await claimAs(t.store, "wkr_a", { endpointId })).toHaveLength(1);
      }
      // Deleted while A sends to it: A forgets the endpoint and never hands it back.
      await t.store.deleteEndpoint(app.id, deleted);
      const hb = await c.heartbeat({
        id: "wkr_b",
        now: NOW,
        deadBefore: NOW - SECOND,
        release: [],
        inTransit: [],
      });
      expect(hb).toMatchObject({ liveWorkers: 2, ownedTotal: 1 });
    });

    it("taking an endpoint through its own index needs due work; no work, no ownership", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}]);
      await join(t.store, "wkr_a");
      await join(t.store, "wkr_b");
      expect(await claimAs(t.store, "wkr_a", { endpointId: endpoints[0]!.id })).toEqual([]);
      await accept(t.store, app.id, { now: T0 });
      // A took nothing, so B may.
      expect(await claimAs(t.store, "wkr_b", { endpointId: endpoints[0]!.id })).toHaveLength(1);
    });

    it("lists endpoints with due work that no worker owns, or one declared dead", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}, {}]);
      const c = coordinationOf(t.store);
      await join(t.store, "wkr_a");
      await join(t.store, "wkr_gone", NOW - MINUTE);
      await accept(t.store, app.id, { now: T0 });
      const [mine, dead, free] = endpoints.map((e) => e.id);
      expect(await claimAs(t.store, "wkr_a", { endpointId: mine })).toHaveLength(1);
      const gone = { endpointId: dead, now: NOW - MINUTE };
      expect(await claimAs(t.store, "wkr_gone", gone)).toHaveLength(1);
      // A second message: one due delivery more on each endpoint.
      await accept(t.store, app.id, { now: T0 + 1 });
      // The live worker's endpoint is not an orphan, nor is the silent one's until a reaping
      // declares it dead (no claim could take it before); the unowned one is.
      expect(await c.orphans(NOW, 10)).toEqual([free]);
      await c.reap(NOW, NOW - 10 * SECOND);
      const orphans = await c.orphans(NOW, 10);
      expect(orphans.sort()).toEqual([dead, free].sort());
      expect(await c.orphans(NOW, 1)).toHaveLength(1);
    });

    it("lists a worker's own endpoints with work due by now, and no other's", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}, {}, {}]);
      const c = coordinationOf(t.store);
      await join(t.store, "wkr_a");
      await join(t.store, "wkr_b");
      const [first, second, ofB, free] = endpoints.map((e) => e.id);
      await accept(t.store, app.id, { now: T0 });
      for (const endpointId of [first, second]) {
        expect(await claimAs(t.store, "wkr_a", { endpointId })).toHaveLength(1);
      }
      expect(await claimAs(t.store, "wkr_b", { endpointId: ofB })).toHaveLength(1);
      // A's rows are in flight: nothing of its own waits.
      expect(await c.dueOwned("wkr_a", NOW)).toEqual([]);
      // A second message: one delivery more on each endpoint, due at T0 + 1.
      await accept(t.store, app.id, { now: T0 + 1 });
      expect((await c.dueOwned("wkr_a", NOW)).sort()).toEqual([first, second].sort());
      expect(await c.dueOwned("wkr_b", NOW)).toEqual([ofB]);
      // Not due yet at T0; and the endpoint nobody owns is nobody's to poll (orphans find it).
      expect(await c.dueOwned("wkr_a", T0)).toEqual([]);
      expect(await c.orphans(NOW, 10)).toEqual([free]);
    });

    it("a clean stop hands every endpoint back and removes the worker", async () => {
      const { app } = await seedApp(t.store, [{}, {}]);
      const c = coordinationOf(t.store);
      await join(t.store, "wkr_a");
      await join(t.store, "wkr_b");
      await accept(t.store, app.id, { now: T0 });
      await claimAs(t.store, "wkr_a");
      expect((await c.unregister("wkr_a")).length).toBe(2);
      const hb = await c.heartbeat({
        id: "wkr_b",
        now: NOW,
        deadBefore: NOW - SECOND,
        release: [],
        inTransit: [],
      });
      expect(hb).toMatchObject({ liveWorkers: 1, ownedTotal: 0 });
    });

    it("signals reach the other processes, not the sender, split to fit", async () => {
      const c = coordinationOf(t.store);
      const heardByB: Signal[] = [];
      const heardByA: Signal[] = [];
      const stopA = await c.subscribe(
        () => "wkr_a",
        (s) => heardByA.push(...s),
        () => {},
      );
      const stopB = await c.subscribe(
        () => "wkr_b",
        (s) => heardByB.push(...s),
        () => {},
      );
      try {
        const many = Array.from({ length: 450 }, (_, i) => `ep_${String(i).padStart(26, "0")}`);
        await c.publish("wkr_a", [
          { kind: "wake", dueAt: 5 },
          { kind: "wake", dueAt: 3 },
          { kind: "endpoint", id: "ep_1" },
          { kind: "released", endpointIds: many },
        ]);
        await expect.poll(() => heardByB.filter((s) => s.kind === "released").length).toBe(5);
        expect(heardByB).toContainEqual({ kind: "wake", dueAt: 3 });
        expect(heardByB).toContainEqual({ kind: "endpoint", id: "ep_1" });
        const released = heardByB.flatMap((s) => (s.kind === "released" ? s.endpointIds : []));
        expect(released).toEqual(many);
        expect(heardByA).toEqual([]);
      } finally {
        await stopA();
        await stopB();
      }
    });

    it("a worker's firing alerts are taken on once it has left: stopped cleanly, or reaped", async () => {
      const c = coordinationOf(t.store);
      await join(t.store, "wkr_a");
      await join(t.store, "wkr_b");
      await join(t.store, "wkr_dead", NOW - MINUTE);
      await saveAlerts(t.store, "wkr_a", [anAlert("alrt_a")]);
      await saveAlerts(t.store, "wkr_dead", [anAlert("alrt_dead")]);
      const adopt = async (holder: string) => (await t.store.adoptAlerts(holder)).map((a) => a.id);
      // Silent, but not yet declared dead: the fleet's reaping decides that, not the alerts.
      expect(await adopt("wkr_b")).toEqual([]);
      await c.reap(NOW, NOW - 10 * SECOND);
      expect(await adopt("wkr_b")).toEqual(["alrt_dead"]);
      await c.unregister("wkr_a");
      expect(await adopt("wkr_b")).toEqual(["alrt_a"]);
      expect(await adopt("wkr_b")).toEqual([]);
    });

    it("an endpoint's alert is taken on by the endpoint's owner, or by any worker if none", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [owned, free] = endpoints.map((e) => e.id) as [string, string];
      await join(t.store, "wkr_b");
      await join(t.store, "wkr_c");
      await accept(t.store, app.id, { now: T0 });
      expect(await claimAs(t.store, "wkr_b", { endpointId: owned })).toHaveLength(1);
      const failing = { rule: "endpoint_failing", severity: "warning" as const };
      await saveAlerts(t.store, "wkr_gone", [
        anAlert("alrt_owned", { ...failing, endpointId: owned }),
        anAlert("alrt_free", { ...failing, endpointId: free }),
      ]);
      // wkr_b sends to `owned` and sees whether it still fails; wkr_c would see no traffic.
      expect((await t.store.adoptAlerts("wkr_c")).map((a) => a.id)).toEqual(["alrt_free"]);
      expect((await t.store.adoptAlerts("wkr_b")).map((a) => a.id)).toEqual(["alrt_owned"]);
    });
  });
}
