/** The engine's side of deliveries: claiming due work, putting it back, pausing and recovering. */
import { describe, expect, it } from "vitest";
import {
  SCAN_START,
  type ClaimedDelivery,
  type Intake,
  type ScanPosition,
} from "../../../src/store/port.js";
import {
  accept,
  claimAll,
  HOUR,
  MINUTE,
  only,
  retried,
  ROOMY_LADDER,
  SECOND,
  seedApp,
  succeeded,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";

export function claimingBehaviour(t: StoreUnderTest): void {
  describe("claimDue", () => {
    it("claims only due pending deliveries, oldest due first, at most limit", async () => {
      const { app } = await seedApp(t.store);
      for (const due of [3, 1, 2, 10]) {
        await accept(t.store, app.id, { now: T0, dueAt: T0 + due * SECOND });
      }
      const now = T0 + 5 * SECOND;
      const lease = now + MINUTE;
      const first = await t.store.claimDue({
        now,
        limit: 2,
        excludeEndpoints: [],
        leaseUntil: lease,
      });
      expect(first.map((d) => d.dueAt)).toEqual([T0 + SECOND, T0 + 2 * SECOND]);
      const second = await t.store.claimDue({
        now,
        limit: 10,
        excludeEndpoints: [],
        leaseUntil: lease,
      });
      expect(second.map((d) => d.dueAt)).toEqual([T0 + 3 * SECOND]);
      for (const d of [...first, ...second]) {
        expect((await t.store.getDelivery(d.id))?.state).toBe("inflight");
      }
      expect(await claimAll(t.store, now)).toEqual([]);
    });

    it("never hands the same delivery to two claims running at once", async () => {
      const { app } = await seedApp(t.store, [{}, {}]);
      for (let i = 0; i < 10; i++) await accept(t.store, app.id, { now: T0 + i });
      const claims = await Promise.all(
        [0, 1, 2, 3].map(() =>
          t.store.claimDue({
            now: T0 + HOUR,
            limit: 6,
            excludeEndpoints: [],
            leaseUntil: T0 + 2 * HOUR,
          }),
        ),
      );
      const ids = claims.flat().map((d) => d.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(20);
      for (const claim of claims) expect(claim.length).toBeLessThanOrEqual(6);
    });

    it("skips excluded endpoints", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}, {}]);
      const [a, b, c] = endpoints.map((e) => e.id) as [string, string, string];
      await accept(t.store, app.id);
      const claimed = await claimAll(t.store, T0, [a, c]);
      expect(claimed.map((d) => d.endpointId)).toEqual([b]);
      const rest = await claimAll(t.store, T0);
      expect(rest.map((d) => d.endpointId).sort()).toEqual([a, c].sort());
    });

    it("hands over what sending needs: ids, counters, event type and payload bytes", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const payload = Buffer.from('{"amount": "12,50 €"}');
      const { message } = await accept(t.store, app.id, {
        eventType: "invoice.paid",
        payload,
        dueAt: T0 + SECOND,
      });
      const [delivery] = await t.store.listDeliveries(message.id);
      const claimed = only(await claimAll(t.store, T0 + MINUTE));
      expect(claimed).toEqual({
        id: delivery!.id,
        appId: app.id,
        messageId: message.id,
        endpointId: endpoints[0]!.id,
        origin: "message",
        attemptCount: 0,
        firstAttemptAt: null,
        lastDelayMs: null,
        dueAt: T0 + SECOND,
        eventType: "invoice.paid",
        payload,
      });
    });

    it("does not claim finished deliveries", async () => {
      const { app } = await seedApp(t.store);
      await accept(t.store, app.id);
      await t.store.recordAttempts([succeeded(only(await claimAll(t.store, T0)), T0 + SECOND)]);
      expect(await claimAll(t.store, T0 + HOUR)).toEqual([]);
    });
  });

  describe("scanDue", () => {
    /** Scans from the start until the store has looked at everything due by `now`. */
    async function scanAll(now: number, exclude: string[], limit: number) {
      const claimed: ClaimedDelivery[] = [];
      let from: ScanPosition = SCAN_START;
      for (let scans = 1; ; scans++) {
        const scan = await t.store.scanDue({
          now,
          limit,
          excludeEndpoints: exclude,
          leaseUntil: now + MINUTE,
          from,
        });
        claimed.push(...scan.claimed);
        if (scan.reached === null) return { claimed, scans };
        // Every scan moves on, so the loop ends.
        expect([scan.reached.due, scan.reached.row]).not.toEqual([from.due, from.row]);
        from = scan.reached;
      }
    }

    it("claims due deliveries from a position on and says where the walk stopped", async () => {
      const { app } = await seedApp(t.store);
      for (const due of [3, 1, 2, 10]) {
        await accept(t.store, app.id, { now: T0, dueAt: T0 + due * SECOND });
      }
      const now = T0 + 5 * SECOND;
      const scan = (from: ScanPosition) =>
        t.store.scanDue({ now, limit: 2, excludeEndpoints: [], leaseUntil: now + MINUTE, from });
      const first = await scan(SCAN_START);
      expect(first.claimed.map((d) => d.dueAt)).toEqual([T0 + SECOND, T0 + 2 * SECOND]);
      // The batch filled: the walk stopped at its last delivery.
      expect(first.reached?.due).toBe(T0 + 2 * SECOND);
      const second = await scan(first.reached!);
      expect(second.claimed.map((d) => d.dueAt)).toEqual([T0 + 3 * SECOND]);
      // Nothing else is due by now: the store looked at everything.
      expect(second.reached).toBeNull();
    });

    it("steps past an excluded endpoint's backlog, however long, to what is due beside it", async () => {
      const { app, endpoints } = await seedApp(t.store, [
        { channels: ["full"] },
        { channels: ["b"] },
      ]);
      const [full, b] = endpoints.map((e) => e.id) as [string, string];
      // Many rows due at one time, as a circuit's pause leaves them, then the other endpoint's
      // (the SQLite store's own test steps past more than one window of its walk).
      const backlog = 500;
      for (let i = 0; i < backlog; i += 100) {
        await Promise.all(
          Array.from({ length: Math.min(100, backlog - i) }, () =>
            accept(t.store, app.id, { channels: ["full"], dueAt: T0 }),
          ),
        );
      }
      await accept(t.store, app.id, { channels: ["b"], dueAt: T0 });
      await accept(t.store, app.id, { channels: ["b"], dueAt: T0 + SECOND });
      const { claimed } = await scanAll(T0 + MINUTE, [full], 10);
      expect(claimed.map((d) => d.endpointId)).toEqual([b, b]);
      // The excluded endpoint's rows were passed over, not taken.
      const rest = await t.store.claimDue({
        now: T0 + MINUTE,
        limit: 2 * backlog,
        excludeEndpoints: [b],
        leaseUntil: T0 + HOUR,
      });
      expect(rest).toHaveLength(backlog);
    });
  });

  describe("dueEndpoints", () => {
    it("names each endpoint with a pending delivery due by now, once, outside the excluded", async () => {
      const { app, endpoints } = await seedApp(t.store, [
        { channels: ["full"] },
        { channels: ["due"] },
        { channels: ["later"] },
        { channels: ["taken"] },
        { channels: ["mixed"] },
      ]);
      const [full, due, , , mixed] = endpoints.map((e) => e.id) as string[];
      for (let i = 0; i < 3; i++) await accept(t.store, app.id, { channels: ["full"] });
      await accept(t.store, app.id, { channels: ["due"] });
      await accept(t.store, app.id, { channels: ["due"], dueAt: T0 + SECOND });
      await accept(t.store, app.id, { channels: ["later"], dueAt: T0 + HOUR });
      await accept(t.store, app.id, { channels: ["taken"] });
      await claimAll(t.store, T0, [full!, due!, mixed!]);
      await accept(t.store, app.id, { channels: ["mixed"], dueAt: T0 + HOUR });
      await accept(t.store, app.id, { channels: ["mixed"], dueAt: T0 + SECOND });

      const found = await t.store.dueEndpoints({
        now: T0 + MINUTE,
        after: "",
        excludeEndpoints: [full!],
      });
      expect([...found.endpoints].sort()).toEqual([due!, mixed!].sort());
      expect(found.reached).toBeNull();
      // In the store's order of endpoint ids, and going on after the one named.
      const rest = await t.store.dueEndpoints({
        now: T0 + MINUTE,
        after: found.endpoints[0]!,
        excludeEndpoints: [full!],
      });
      expect(rest.endpoints).toEqual(found.endpoints.slice(1));
    });

    it("names nobody when nothing is due yet", async () => {
      const { app } = await seedApp(t.store);
      await accept(t.store, app.id, { dueAt: T0 + HOUR });
      const found = await t.store.dueEndpoints({ now: T0, after: "", excludeEndpoints: [] });
      expect(found).toEqual({ endpoints: [], reached: null });
    });
  });

  describe("nextDueAt", () => {
    it("is null when nothing is pending", async () => {
      expect(await t.store.nextDueAt([])).toBeNull();
      const { app } = await seedApp(t.store);
      await accept(t.store, app.id);
      await claimAll(t.store, T0);
      expect(await t.store.nextDueAt([])).toBeNull();
    });

    it("is the earliest due time of a pending delivery outside the excluded endpoints", async () => {
      const { app, endpoints } = await seedApp(t.store, [{ channels: ["a"] }, { channels: ["b"] }]);
      const [a, b] = endpoints.map((e) => e.id) as [string, string];
      await accept(t.store, app.id, { channels: ["b"], dueAt: T0 + 2 * MINUTE });
      await accept(t.store, app.id, { channels: ["a"], dueAt: T0 + 3 * MINUTE });
      await accept(t.store, app.id, { channels: ["a"], dueAt: T0 + MINUTE });
      expect(await t.store.nextDueAt([])).toBe(T0 + MINUTE);
      expect(await t.store.nextDueAt([a])).toBe(T0 + 2 * MINUTE);
      expect(await t.store.nextDueAt([b])).toBe(T0 + MINUTE);
      expect(await t.store.nextDueAt([a, b])).toBeNull();
    });
  });

  describe("releaseDeliveries", () => {
    it("puts a claimed delivery back to pending at the given time without spending an attempt", async () => {
      const { app } = await seedApp(t.store);
      await accept(t.store, app.id);
      const first = only(await claimAll(t.store, T0));
      await t.store.recordAttempts([retried(first, T0 + SECOND, T0 + MINUTE)]);
      const again = only(await claimAll(t.store, T0 + MINUTE));

      const backAt = T0 + 10 * MINUTE;
      await t.store.releaseDeliveries([{ deliveryId: again.id, at: backAt }]);
      expect(await t.store.getDelivery(again.id)).toMatchObject({
        state: "pending",
        nextAttemptAt: backAt,
        attemptCount: 1,
      });
      expect(await claimAll(t.store, backAt - 1)).toEqual([]);
      expect(only(await claimAll(t.store, backAt))).toMatchObject({
        id: again.id,
        attemptCount: 1,
      });
    });

    it("leaves a delivery that is no longer claimed as it is", async () => {
      const { app } = await seedApp(t.store);
      await accept(t.store, app.id);
      const claimed = only(await claimAll(t.store, T0));
      await t.store.recordAttempts([succeeded(claimed, T0 + SECOND)]);
      await t.store.releaseDeliveries([{ deliveryId: claimed.id, at: T0 + MINUTE }]);
      expect((await t.store.getDelivery(claimed.id))?.state).toBe("succeeded");
      expect(await claimAll(t.store, T0 + HOUR)).toEqual([]);
    });
  });

  describe("pauseEndpoint", () => {
    it("moves an endpoint's pending deliveries due before `until` to `until`, nothing else", async () => {
      const { app, endpoints } = await seedApp(t.store, [{ channels: ["p"] }, { channels: ["q"] }]);
      const [paused, other] = endpoints.map((e) => e.id) as [string, string];
      const inflight = await accept(t.store, app.id, { channels: ["p"], dueAt: T0 - MINUTE });
      const claimed = only(await claimAll(t.store, T0 - MINUTE));
      const soon = await accept(t.store, app.id, { channels: ["p"], dueAt: T0 });
      const later = await accept(t.store, app.id, { channels: ["p"], dueAt: T0 + MINUTE });
      const beyond = await accept(t.store, app.id, { channels: ["p"], dueAt: T0 + 20 * MINUTE });
      const elsewhere = await accept(t.store, app.id, { channels: ["q"], dueAt: T0 });

      const until = T0 + 10 * MINUTE;
      expect(await t.store.pauseEndpoint(paused, until, ROOMY_LADDER)).toBe(2);

      const dueOf = async (messageId: string) =>
        only(await t.store.listDeliveries(messageId)).nextAttemptAt;
      expect(await dueOf(soon.message.id)).toBe(until);
      expect(await dueOf(later.message.id)).toBe(until);
      expect(await dueOf(beyond.message.id)).toBe(T0 + 20 * MINUTE);
      expect(await dueOf(elsewhere.message.id)).toBe(T0);
      expect(only(await t.store.listDeliveries(inflight.message.id))).toMatchObject({
        id: claimed.id,
        state: "inflight",
      });
      expect((await claimAll(t.store, until - 1)).map((d) => d.endpointId)).toEqual([other]);
    });

    it("leaves a retry with no attempt left by `until` at its own time", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const ep = endpoints[0]!.id;
      const firstTriedAt = async (dueAt: number, nextAt: number) => {
        const { message } = await accept(t.store, app.id, { now: dueAt, dueAt });
        await t.store.recordAttempts([
          retried(only(await claimAll(t.store, dueAt)), dueAt, nextAt),
        ]);
        return message.id;
      };
      const retry = T0 + 10 * SECOND;
      // Its window, from its first attempt now, reaches past `until`: it waits for the probe.
      const inWindow = await firstTriedAt(T0, retry);
      // Its window, from its first attempt half an hour ago, ends before `until`.
      const pastWindow = await firstTriedAt(T0 - 30 * MINUTE, retry);
      // Its second and last attempt is the one due.
      const spent = await firstTriedAt(T0 - 20 * SECOND, T0 - 10 * SECOND);
      await t.store.recordAttempts([retried(only(await claimAll(t.store, T0)), T0, retry)]);
      const fresh = (await accept(t.store, app.id, { dueAt: T0 + SECOND })).message.id;

      const until = T0 + 10 * MINUTE;
      const ladder = { attempts: 2, windowMs: 30 * MINUTE };
      expect(await t.store.pauseEndpoint(ep, until, ladder)).toBe(2);

      const deliveryOf = async (messageId: string) => only(await t.store.listDeliveries(messageId));
      expect(await deliveryOf(inWindow)).toMatchObject({ attemptCount: 1, nextAttemptAt: until });
      expect(await deliveryOf(fresh)).toMatchObject({ attemptCount: 0, nextAttemptAt: until });
      expect(await deliveryOf(pastWindow)).toMatchObject({ attemptCount: 1, nextAttemptAt: retry });
      expect(await deliveryOf(spent)).toMatchObject({ attemptCount: 2, nextAttemptAt: retry });
    });
  });

  describe("bringProbeForward", () => {
    const probeAt = T0 + HOUR;
    const open = {
      state: "open" as const,
      since: T0,
      reason: "5 consecutive failures",
      openedAt: T0 - HOUR,
    };

    it("moves an open circuit's probe, and the deliveries held for it, to `at`", async () => {
      const { app, endpoints } = await seedApp(t.store, [{ channels: ["p"] }, { channels: ["q"] }]);
      const ep = endpoints[0]!.id;
      const held = await accept(t.store, app.id, { channels: ["p"], dueAt: T0 });
      const later = await accept(t.store, app.id, { channels: ["p"], dueAt: probeAt + MINUTE });
      const elsewhere = await accept(t.store, app.id, { channels: ["q"], dueAt: probeAt });
      await t.store.saveCircuit(ep, { ...open, nextProbeAt: probeAt, reopenCount: 3 }, null);
      await t.store.pauseEndpoint(ep, probeAt, ROOMY_LADDER);

      const at = T0 + 10 * MINUTE;
      expect(await t.store.bringProbeForward(ep, at)).toBe(true);
      expect(await t.store.getCircuit(ep)).toEqual({ ...open, nextProbeAt: at, reopenCount: 3 });
      const dueOf = async (messageId: string) =>
        only(await t.store.listDeliveries(messageId)).nextAttemptAt;
      expect(await dueOf(held.message.id)).toBe(at);
      // A retry due after the probe keeps its own time; other endpoints are not touched.
      expect(await dueOf(later.message.id)).toBe(probeAt + MINUTE);
      expect(await dueOf(elsewhere.message.id)).toBe(probeAt);
      expect((await claimAll(t.store, at)).map((d) => d.endpointId)).toEqual([ep]);
    });

    it("changes nothing when the circuit is not open or its probe is due by then", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}, {}]);
      const [closed, halfOpen, soon] = endpoints.map((e) => e.id) as [string, string, string];
      await accept(t.store, app.id, { dueAt: probeAt });
      await t.store.saveCircuit(
        halfOpen,
        { ...open, state: "half-open", nextProbeAt: null, reopenCount: 1 },
        null,
      );
      await t.store.saveCircuit(soon, { ...open, nextProbeAt: T0 + MINUTE, reopenCount: 1 }, null);

      const at = T0 + 2 * MINUTE;
      expect(await t.store.bringProbeForward(closed, at)).toBe(false);
      expect(await t.store.bringProbeForward(halfOpen, at)).toBe(false);
      expect(await t.store.bringProbeForward(soon, at)).toBe(false);
      expect(await t.store.getCircuit(closed)).toBeNull();
      expect((await t.store.getCircuit(soon))!.nextProbeAt).toBe(T0 + MINUTE);
      expect(await claimAll(t.store, at)).toEqual([]);
    });
  });

  describe("recoverInflight", () => {
    it("returns every claimed delivery to pending, due no later than now", async () => {
      const { app } = await seedApp(t.store, [{}, {}]);
      await accept(t.store, app.id, { now: T0 });
      await accept(t.store, app.id, { now: T0, dueAt: T0 + HOUR });
      const claimed = await claimAll(t.store, T0);
      expect(claimed).toHaveLength(2);

      const now = T0 + 5 * MINUTE;
      expect(await t.store.recoverInflight(now)).toBe(2);
      for (const d of claimed) {
        const after = await t.store.getDelivery(d.id);
        expect(after?.state).toBe("pending");
        expect(after?.nextAttemptAt).toBeLessThanOrEqual(now);
        expect(after?.attemptCount).toBe(0);
      }
      const reclaimed = await claimAll(t.store, now);
      expect(reclaimed.map((d) => d.id).sort()).toEqual(claimed.map((d) => d.id).sort());
      expect(await t.store.nextDueAt([])).toBe(T0 + HOUR);
      expect(await t.store.recoverInflight(now)).toBe(2);
      expect(await t.store.recoverInflight(now)).toBe(0);
    });
  });

  describe("an intake at accept", () => {
    /** Takes up to `room` deliveries for the endpoints named, none for others; notes hand-overs. */
    function anIntake(room: Map<string, number>) {
      const handed: ClaimedDelivery[][] = [];
      const intake: Intake = {
        room: (endpointId, forEndpoint) => Math.max(0, (room.get(endpointId) ?? 0) - forEndpoint),
        leaseUntil: () => T0 + MINUTE,
        handOver: (taken) => void handed.push(taken),
      };
      return { intake, handed };
    }

    it("hands over, claimed, only what it has room for; the rest is due as usual", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}, {}]);
      const [a, b] = endpoints.map((e) => e.id);
      const { intake, handed } = anIntake(new Map([[a!, 1]]));
      const posted = Buffer.from('{"taken":"maybe"}');
      const result = await accept(t.store, app.id, { payload: posted, intake });
      expect(result.deliveries).toBe(3);
      // A store may take none (PostgreSQL); what it takes, it reports and hands over whole.
      const taken = handed.flat();
      expect(result.taken).toBe(taken.length);
      expect(taken.length).toBe(t.store.kind === "sqlite" ? 1 : 0);
      for (const d of taken) {
        expect(d).toMatchObject({ endpointId: a, messageId: result.message.id, attemptCount: 0 });
        expect(d.payload.equals(posted)).toBe(true);
        expect((await t.store.getDelivery(d.id))?.state).toBe("inflight");
      }
      const claimed = await claimAll(t.store, T0);
      expect(claimed).toHaveLength(3 - taken.length);
      expect(claimed.map((d) => d.endpointId)).toContain(b);
    });

    it("takes nothing that is not due yet", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const { intake, handed } = anIntake(new Map([[endpoints[0]!.id, 5]]));
      const result = await accept(t.store, app.id, { dueAt: T0 + HOUR, intake });
      expect(result.taken).toBe(0);
      expect(handed).toEqual([]);
      expect(await claimAll(t.store, T0 + HOUR)).toHaveLength(1);
    });
  });
}
