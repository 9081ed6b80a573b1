/** The dead-letter queue: records, replays and their outcomes, decisions, summary, depth cap. */
import { describe, expect, it } from "vitest";
import { newId } from "../../../src/ids.js";
import type { DeliveryOutcome } from "../../../src/store/port.js";
import {
  accept,
  aFailedAttempt,
  claimAll,
  HOUR,
  MINUTE,
  only,
  outcomeFor,
  retried,
  SECOND,
  seedApp,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";
import { deadLetter, giveUp, replayClaimed, replayOutcome, SIGNED } from "./dlq-fixtures.js";

export function deadLetterBehaviour(t: StoreUnderTest): void {
  describe("dead-letter records", () => {
    it("a dead delivery becomes an open record with its payload, attempts and history", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const payload = Buffer.from('{"invoice": 7,  "note":"spaces kept ✓"}');
      const record = await deadLetter(t.store, app.id, {
        payload,
        eventId: "inv-7",
        eventType: "invoice.failed",
      });
      expect(record).toMatchObject({
        appId: app.id,
        endpointId: endpoints[0]!.id,
        eventId: "inv-7",
        eventType: "invoice.failed",
        failureClass: "exhausted",
        state: "open",
        replayCount: 0,
        failedReplays: 0,
        signatureHeaders: SIGNED,
        createdAt: T0 + SECOND,
        updatedAt: T0 + SECOND,
      });
      const whole = await t.store.getDeadLetterRecord(record.id);
      expect(whole!.payload!.equals(payload)).toBe(true);
      expect(whole!.attempts.map((a) => [a.deliveryId, a.status])).toEqual([
        [record.deliveryId, 503],
      ]);
      expect(whole!.history).toEqual([
        {
          at: T0 + SECOND,
          actor: "hookline",
          action: "dead_lettered",
          result: "exhausted: gave up (exhausted)",
          note: null,
          deliveryId: null,
          jobId: null,
        },
      ]);
      expect(await t.store.getDeadLetter(record.id)).toEqual(record);
      expect(await t.store.getDeadLetterRecord("dlq_NOPE")).toBeNull();
    });

    it("a delivery ended without a request keeps its last answer as the record's final status or error", async () => {
      const { app } = await seedApp(t.store, [{}, {}, {}]);
      await accept(t.store, app.id, { now: T0 });
      const [answered, refused, untried] = await claimAll(t.store, T0 + SECOND);
      const retryAt = T0 + MINUTE;
      await t.store.recordAttempts([
        retried(answered!, T0 + SECOND, retryAt),
        outcomeFor(refused!, {
          at: T0 + SECOND,
          attempt: aFailedAttempt(T0 + SECOND, {
            status: null,
            error: "connection_refused",
            errorDetail: "ECONNREFUSED 127.0.0.1:9",
          }),
          next: { kind: "retry", at: retryAt, delayMs: retryAt - T0 - SECOND },
        }),
      ]);
      // Each then ends unsent: an open circuit held its retry past the window, say.
      const held = await claimAll(t.store, retryAt);
      const unsent: DeliveryOutcome["next"] = {
        kind: "dead",
        failureClass: "exhausted",
        reason: "held past its window",
      };
      const ends = [...held, untried!].map((d) =>
        outcomeFor(d, { at: retryAt, attempt: null, next: unsent }),
      );
      expect((await t.store.recordAttempts(ends)).changes.map((c) => c.kind)).toEqual([
        "recorded",
        "recorded",
        "recorded",
      ]);
      const final = async (deliveryId: string) => {
        const r = (await t.store.findDeadLetterByDelivery(deliveryId))!;
        return [r.finalStatus, r.finalError, r.signatureHeaders, r.reason];
      };
      expect(await final(answered!.id)).toEqual([503, null, {}, "held past its window"]);
      expect(await final(refused!.id)).toEqual([
        null,
        "connection_refused: ECONNREFUSED 127.0.0.1:9",
        {},
        "held past its window",
      ]);
      expect(await final(untried!.id)).toEqual([null, null, {}, "held past its window"]);
    });

    it("lists records by application, endpoint, state, class, event type and time", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [e1, e2] = endpoints.map((e) => e.id) as [string, string];
      const a = await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + SECOND });
      const b = await deadLetter(t.store, app.id, {
        endpointId: e2,
        at: T0 + 2 * SECOND,
        cls: "permanent",
        eventType: "user.deleted",
      });
      const c = await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + 3 * SECOND });
      await t.store.resolveDeadLetter({ id: c.id, actor: "ops", note: "sent by hand", now: T0 });
      const ids = async (q: Parameters<typeof t.store.listDeadLetters>[0]) =>
        (await t.store.listDeadLetters(q)).data.map((d) => d.id);
      expect(await ids({ limit: 10 })).toEqual([a.id, b.id, c.id]);
      expect(await ids({ limit: 10, order: "descending" })).toEqual([c.id, b.id, a.id]);
      expect(await ids({ limit: 10, endpointId: e1 })).toEqual([a.id, c.id]);
      expect(await ids({ limit: 10, appId: app.id, states: ["open"] })).toEqual([a.id, b.id]);
      expect(await ids({ limit: 10, failureClass: "permanent" })).toEqual([b.id]);
      expect(await ids({ limit: 10, eventType: "user.deleted" })).toEqual([b.id]);
      expect(await ids({ limit: 10, since: T0 + 2 * SECOND })).toEqual([b.id, c.id]);
      expect(await ids({ limit: 10, until: T0 + 2 * SECOND })).toEqual([a.id]);
    });

    it("says why each delivery asked for was given up, by delivery, and of no other", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [e1, e2] = endpoints.map((e) => e.id) as [string, string];
      // Another message's record at the same endpoint is not asked for.
      await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + SECOND });
      await accept(t.store, app.id, { now: T0 + SECOND });
      const claimed = await claimAll(t.store, T0 + 2 * SECOND);
      const given = claimed.find((d) => d.endpointId === e1)!;
      const waiting = claimed.find((d) => d.endpointId === e2)!;
      await giveUp(t.store, given, T0 + 2 * SECOND, "permanent");
      await t.store.recordAttempts([retried(waiting, T0 + 2 * SECOND, T0 + HOUR)]);
      const reasons = t.store.deadLetterReasons(given.messageId, [
        given.id,
        waiting.id,
        "dlv_none",
      ]);
      expect(await reasons).toEqual(new Map([[given.id, "gave up (permanent)"]]));
      expect(await t.store.deadLetterReasons(given.messageId, [])).toEqual(new Map());
    });
  });

  describe("replays", () => {
    it("queues one replay delivery of the same message, and refuses a second while it is out", async () => {
      const { app } = await seedApp(t.store);
      const record = await deadLetter(t.store, app.id);
      const now = T0 + HOUR;
      const ask = (id: string) =>
        t.store.enqueueReplay({
          deadLetterId: record.id,
          deliveryId: id,
          now,
          actor: "ops",
          note: null,
          abandonAfter: null,
        });
      const results = await Promise.all([ask(newId("dlv", now)), ask(newId("dlv", now))]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const refused = results.find((r) => !r.ok)!;
      expect(refused.record?.state).toBe("replaying");
      const queued = results.find((r) => r.ok)!;
      if (!queued.ok) throw new Error("unreachable");
      expect(queued.record.state).toBe("replaying");
      expect(queued.delivery).toMatchObject({
        messageId: record.messageId,
        endpointId: record.endpointId,
        origin: "replay",
        deadLetterId: record.id,
        state: "pending",
        nextAttemptAt: now,
      });
      const claimed = only(await claimAll(t.store, now));
      expect(claimed).toMatchObject({ id: queued.delivery.id, origin: "replay", attemptCount: 0 });
      expect((await t.store.findDeadLetterByDelivery(queued.delivery.id)) ?? null).toBeNull();
    });

    it("a replay waits for the probe while the endpoint's circuit is open", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const record = await deadLetter(t.store, app.id);
      const probeAt = T0 + HOUR + 5 * MINUTE;
      await t.store.saveCircuit(
        endpoints[0]!.id,
        {
          state: "open",
          since: T0 + HOUR,
          reason: "5 failures",
          nextProbeAt: probeAt,
          reopenCount: 0,
        },
        null,
      );
      const queued = await t.store.enqueueReplay({
        deadLetterId: record.id,
        deliveryId: newId("dlv"),
        now: T0 + HOUR,
        actor: "ops",
        note: null,
        abandonAfter: null,
      });
      expect(queued.ok && queued.delivery.nextAttemptAt).toBe(probeAt);
      const whole = await t.store.getDeadLetterRecord(record.id);
      expect(whole!.history.at(-1)!.result).toMatch(/queued behind the circuit's probe/);
    });

    it("a successful replay resolves the record and never makes a new one", async () => {
      const { app } = await seedApp(t.store);
      const record = await deadLetter(t.store, app.id);
      const at = T0 + HOUR;
      const replay = await replayClaimed(t.store, record, at);
      const { changes } = await t.store.recordAttempts([replayOutcome(replay, at + SECOND, true)]);
      expect(changes).toEqual([
        expect.objectContaining({
          kind: "replay_succeeded",
          deadLetterId: record.id,
          deliveryId: replay.id,
          actor: "ops",
        }),
      ]);
      expect(await t.store.getDeadLetter(record.id)).toMatchObject({
        state: "resolved",
        replayCount: 1,
        failedReplays: 0,
        lastAttemptAt: at + SECOND,
        firstAttemptAt: record.firstAttemptAt,
        signatureHeaders: SIGNED,
        updatedAt: at + SECOND,
      });
      expect((await t.store.listDeadLetters({ limit: 10 })).data).toHaveLength(1);
      const whole = await t.store.getDeadLetterRecord(record.id);
      expect(whole!.attempts.map((a) => a.trigger)).toEqual(["first", "replay"]);
      expect(whole!.history.map((h) => [h.action, h.actor])).toEqual([
        ["dead_lettered", "hookline"],
        ["replay_requested", "ops"],
        ["replayed", "ops"],
      ]);
      expect(whole!.history[1]!.note).toBe("receiver fixed");
      expect(whole!.history[2]!.result).toMatch(/^succeeded: HTTP 200 in \d+ ms$/);
      expect(await t.store.getDelivery(replay.id)).toMatchObject({ state: "succeeded" });
      expect((await t.store.getEndpointStats(record.endpointId)).lastSuccessAt).toBe(at + SECOND);
      // A resolved record may be replayed again.
      const again = await replayClaimed(t.store, (await t.store.getDeadLetter(record.id))!, at * 2);
      expect(again.origin).toBe("replay");
    });

    it("a failed replay reopens the record; failing abandonAfter times in a row abandons it", async () => {
      const { app } = await seedApp(t.store);
      const record = await deadLetter(t.store, app.id);
      let at = T0 + HOUR;
      const fail = async () => {
        const replay = await replayClaimed(
          t.store,
          (await t.store.getDeadLetter(record.id))!,
          at,
          2,
        );
        at += MINUTE;
        return (await t.store.recordAttempts([replayOutcome(replay, at, false)])).changes;
      };
      expect((await fail()).map((c) => c.kind)).toEqual(["replay_failed"]);
      expect(await t.store.getDeadLetter(record.id)).toMatchObject({
        state: "open",
        replayCount: 1,
        failedReplays: 1,
      });
      const second = await fail();
      expect(second.map((c) => c.kind)).toEqual(["replay_failed", "abandoned"]);
      expect(second[1]).toMatchObject({ actor: "hookline", deadLetterId: record.id });
      expect(await t.store.getDeadLetter(record.id)).toMatchObject({
        state: "abandoned",
        replayCount: 2,
        failedReplays: 2,
      });
      const history = (await t.store.getDeadLetterRecord(record.id))!.history;
      expect(history.at(-1)).toMatchObject({
        action: "abandoned",
        actor: "hookline",
        result: "abandoned after 2 failed replays in a row",
      });
      const refused = await t.store.enqueueReplay({
        deadLetterId: record.id,
        deliveryId: newId("dlv"),
        now: at,
        actor: "ops",
        note: null,
        abandonAfter: 2,
      });
      expect(refused).toEqual({
        ok: false,
        record: expect.objectContaining({ state: "abandoned" }),
      });
      expect((await t.store.listDeadLetters({ limit: 10 })).data).toHaveLength(1);
    });

    it("a replay ended without a request (its endpoint disabled meanwhile) reopens the record but never abandons it, and is withdrawn in its history and its change", async () => {
      const { app } = await seedApp(t.store);
      const record = await deadLetter(t.store, app.id);
      const at = T0 + HOUR;
      const failed = await replayClaimed(t.store, record, at, 2);
      await t.store.recordAttempts([replayOutcome(failed, at + MINUTE, false)]);
      const unsent = await replayClaimed(
        t.store,
        (await t.store.getDeadLetter(record.id))!,
        at + 2 * MINUTE,
        2,
      );
      const { changes } = await t.store.recordAttempts([
        {
          ...replayOutcome(unsent, at + 3 * MINUTE, false),
          attempt: null,
          signatureHeaders: {},
          next: { kind: "dead", failureClass: "permanent", reason: "endpoint disabled" },
        },
      ]);
      // No failed replay: whatever counts or alerts on those must not see one.
      expect(changes.map((c) => c.kind)).toEqual(["replay_withdrawn"]);
      expect(await t.store.getDeadLetter(record.id)).toMatchObject({
        state: "open",
        replayCount: 2,
        failedReplays: 1,
      });
      // Withdrawn, as a job and the metrics count it: nothing of the receiver was tried.
      expect((await t.store.getDeadLetterRecord(record.id))!.history.at(-1)).toMatchObject({
        action: "replay_withdrawn",
        result: "no request was sent: endpoint disabled",
        deliveryId: unsent.id,
      });
      // Its delivery says why it ended, as the original's would; the one sent says nothing.
      expect(await t.store.deadLetterReasons(record.messageId, [failed.id, unsent.id])).toEqual(
        new Map([[unsent.id, "endpoint disabled"]]),
      );
    });
  });

  describe("decisions", () => {
    it("resolve and abandon follow the allowed transitions and keep the person's note", async () => {
      const { app } = await seedApp(t.store);
      const record = await deadLetter(t.store, app.id);
      const decide = (to: "resolve" | "abandon", note: string, now: number) =>
        t.store[to === "resolve" ? "resolveDeadLetter" : "abandonDeadLetter"]({
          id: record.id,
          actor: "ops",
          note,
          now,
        });
      expect(await decide("abandon", "customer closed the account", T0 + HOUR)).toMatchObject({
        ok: true,
        record: { state: "abandoned", updatedAt: T0 + HOUR },
      });
      expect(await decide("abandon", "twice", T0 + HOUR)).toMatchObject({
        ok: false,
        record: { state: "abandoned" },
      });
      expect(await decide("resolve", "delivered by hand", T0 + 2 * HOUR)).toMatchObject({
        ok: true,
        record: { state: "resolved" },
      });
      expect(await decide("resolve", "again", T0 + 2 * HOUR)).toMatchObject({ ok: false });
      expect(await decide("abandon", "too late", T0 + 2 * HOUR)).toMatchObject({ ok: false });
      const missing = await t.store.resolveDeadLetter({
        id: "dlq_MISSING",
        actor: "ops",
        note: "x",
        now: T0,
      });
      expect(missing).toEqual({ ok: false, record: null });
      const history = (await t.store.getDeadLetterRecord(record.id))!.history.slice(1);
      expect(history).toEqual([
        expect.objectContaining({
          action: "abandoned",
          actor: "ops",
          note: "customer closed the account",
          at: T0 + HOUR,
        }),
        expect.objectContaining({ action: "resolved", actor: "ops", note: "delivered by hand" }),
      ]);
    });
  });

  describe("a person's resolve", () => {
    it("starts the count of failed replays again, so one more failure does not abandon it at once", async () => {
      const { app } = await seedApp(t.store);
      const record = await deadLetter(t.store, app.id);
      let at = T0 + HOUR;
      const fail = async () => {
        const current = (await t.store.getDeadLetter(record.id))!;
        const replay = await replayClaimed(t.store, current, at, 2);
        at += MINUTE;
        return (await t.store.recordAttempts([replayOutcome(replay, at, false)])).changes;
      };
      await fail();
      expect((await fail()).map((c) => c.kind)).toEqual(["replay_failed", "abandoned"]);
      const resolved = await t.store.resolveDeadLetter({
        id: record.id,
        actor: "ops",
        note: "receiver rebuilt",
        now: at,
      });
      expect(resolved).toMatchObject({ ok: true, record: { state: "resolved", failedReplays: 0 } });
      expect((await fail()).map((c) => c.kind)).toEqual(["replay_failed"]);
      expect(await t.store.getDeadLetter(record.id)).toMatchObject({
        state: "open",
        replayCount: 3,
        failedReplays: 1,
      });
    });
  });

  describe("a resend that delivers", () => {
    it("resolves the message's open records for that endpoint, and only those", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [a, b] = endpoints.map((e) => e.id) as [string, string];
      // One message given up on at both endpoints, and another message given up on at a.
      await accept(t.store, app.id, { now: T0 });
      const first = await claimAll(t.store, T0 + SECOND);
      for (const d of first) await giveUp(t.store, d, T0 + SECOND);
      const recordOf = async (endpointId: string) =>
        (await t.store.findDeadLetterByDelivery(
          first.find((d) => d.endpointId === endpointId)!.id,
        ))!;
      const onA = await recordOf(a);
      const onB = await recordOf(b);
      const otherMessage = await deadLetter(t.store, app.id, { endpointId: a, at: T0 + MINUTE });

      const resend = async (at: number) => {
        await t.store.enqueueResend({
          id: newId("dlv", at),
          appId: app.id,
          messageId: onA.messageId,
          endpointId: a,
          now: at,
        });
        return (await claimAll(t.store, at)).find((d) => d.origin === "resend")!;
      };
      // A resend that fails resolves nothing.
      const failing = await resend(T0 + HOUR);
      await t.store.recordAttempts([
        outcomeFor(failing, {
          at: T0 + HOUR,
          attempt: aFailedAttempt(T0 + HOUR),
          next: { kind: "dead", failureClass: "exhausted", reason: "gave up again" },
        }),
      ]);
      const open = (await t.store.listDeadLetters({ limit: 10, states: ["open"] })).data;
      expect(open.map((r) => r.id)).toContain(onA.id);

      const ok = await resend(T0 + 2 * HOUR);
      const { changes } = await t.store.recordAttempts([
        outcomeFor(ok, { at: T0 + 2 * HOUR + SECOND, next: { kind: "succeeded" } }),
      ]);
      const resolved = changes.filter((c) => c.kind === "resolved");
      // The first record, and the one the failed resend made: both of this message and endpoint.
      expect(resolved.map((c) => c.deliveryId)).toEqual([ok.id, ok.id]);
      expect(resolved.every((c) => c.endpointId === a && c.actor === "hookline")).toBe(true);
      expect(await t.store.getDeadLetter(onA.id)).toMatchObject({
        state: "resolved",
        updatedAt: T0 + 2 * HOUR + SECOND,
      });
      const history = (await t.store.getDeadLetterRecord(onA.id))!.history;
      expect(history.at(-1)).toMatchObject({ action: "resolved", actor: "hookline" });
      expect(history.at(-1)!.result).toContain(
        `a resend delivered the message (delivery ${ok.id})`,
      );
      expect((await t.store.getDeadLetter(otherMessage.id))!.state).toBe("open");
      expect((await t.store.getDeadLetter(onB.id))!.state).toBe("open");
    });
  });

  describe("deadLetterSummary", () => {
    it("groups open and replaying records by endpoint and class, oldest group first", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [e1, e2] = endpoints.map((e) => e.id) as [string, string];
      const old = await deadLetter(t.store, app.id, { endpointId: e2, at: T0 + SECOND });
      await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + 2 * SECOND, cls: "permanent" });
      await deadLetter(t.store, app.id, { endpointId: e2, at: T0 + 3 * SECOND });
      const closed = await deadLetter(t.store, app.id, { endpointId: e1, at: T0 + 4 * SECOND });
      await t.store.abandonDeadLetter({ id: closed.id, actor: "ops", note: "n", now: T0 + HOUR });
      await replayClaimed(t.store, old, T0 + HOUR);
      await t.store.saveCircuit(
        e2,
        {
          state: "open",
          since: T0,
          reason: "down",
          nextProbeAt: T0 + HOUR,
          reopenCount: 1,
          openedAt: T0 - HOUR,
        },
        null,
      );
      const other = await seedApp(t.store);
      await deadLetter(t.store, other.app.id);

      const rows = await t.store.deadLetterSummary({ appId: app.id });
      expect(rows).toEqual([
        {
          appId: app.id,
          endpointId: e2,
          failureClass: "exhausted",
          open: 1,
          replaying: 1,
          oldestAt: T0 + SECOND,
          lastSuccessAt: null,
          circuit: expect.objectContaining({
            state: "open",
            nextProbeAt: T0 + HOUR,
            openedAt: T0 - HOUR,
          }),
          depth: 2,
          overflowed: 0,
          lastOverflowAt: null,
        },
        {
          appId: app.id,
          endpointId: e1,
          failureClass: "permanent",
          open: 1,
          replaying: 0,
          oldestAt: T0 + 2 * SECOND,
          lastSuccessAt: null,
          circuit: null,
          depth: 1,
          overflowed: 0,
          lastOverflowAt: null,
        },
      ]);
      expect(await t.store.deadLetterSummary({})).toHaveLength(3);
    });

    it("an endpoint with nothing open stays listed, without class or oldest, while its tombstones are kept", async () => {
      const store = await t.withLimits({ maxOpenDeadLettersPerEndpoint: 1 });
      const { app, endpoints } = await seedApp(store);
      const ep = endpoints[0]!.id;
      const record = await deadLetter(store, app.id, { at: T0 + SECOND });
      await accept(store, app.id, { now: T0 + SECOND });
      const overflowAt = T0 + 2 * SECOND;
      await giveUp(store, only(await claimAll(store, overflowAt)), overflowAt);
      // While a record is open, its group carries the count: no second row.
      expect(await store.deadLetterSummary({})).toEqual([
        expect.objectContaining({ endpointId: ep, open: 1, overflowed: 1 }),
      ]);

      await store.resolveDeadLetter({ id: record.id, actor: "ops", note: "n", now: T0 + HOUR });
      const zero = {
        appId: app.id,
        endpointId: ep,
        failureClass: null,
        open: 0,
        replaying: 0,
        oldestAt: null,
        lastSuccessAt: null,
        circuit: null,
        depth: 0,
        overflowed: 1,
        lastOverflowAt: overflowAt,
      };
      const other = await seedApp(store);
      const open = await deadLetter(store, other.app.id, { at: T0 + 3 * SECOND });
      // Groups of open records first, oldest first; then endpoints with nothing open.
      expect(await store.deadLetterSummary({})).toEqual([
        expect.objectContaining({ endpointId: open.endpointId, open: 1, overflowed: 0 }),
        zero,
      ]);
      expect(await store.deadLetterSummary({ appId: app.id })).toEqual([zero]);
      expect(await store.deadLetterSummary({ appId: other.app.id })).toHaveLength(1);

      // Once retention has taken the tombstones, nothing is left to act on: the row goes.
      const retentionMs = HOUR;
      for (;;) {
        const pruned = await store.pruneExpired({
          now: T0 + 3 * HOUR,
          retentionMs,
          batchSize: 100,
        });
        if (pruned.done) break;
      }
      expect(await store.listDeadLetterOverflow({ endpointId: ep, limit: 10 })).toMatchObject({
        data: [],
      });
      expect(await store.deadLetterSummary({ appId: app.id })).toEqual([]);
    });
  });

  describe("depth cap", () => {
    it("past the cap a dead letter becomes a counted tombstone; closing records makes room", async () => {
      const store = await t.withLimits({ maxOpenDeadLettersPerEndpoint: 2 });
      const { app, endpoints } = await seedApp(store);
      const ep = endpoints[0]!.id;
      const first = await deadLetter(store, app.id, { at: T0 + SECOND });
      await deadLetter(store, app.id, { at: T0 + 2 * SECOND });

      const { message } = await accept(store, app.id, { eventId: "evt-3", now: T0 + 2 * SECOND });
      const third = only(await claimAll(store, T0 + 3 * SECOND));
      const changes = await giveUp(store, third, T0 + 3 * SECOND, "permanent");
      expect(changes).toEqual([
        expect.objectContaining({ kind: "overflowed", endpointId: ep, deliveryId: third.id }),
      ]);
      expect(changes[0]!.detail).toMatch(/not kept: the endpoint has 2 open records \(cap 2\)/);
      expect(await store.findDeadLetterByDelivery(third.id)).toBeNull();
      expect(await store.getDelivery(third.id)).toMatchObject({ state: "dead" });
      const tombstones = await store.listDeadLetterOverflow({ endpointId: ep, limit: 10 });
      expect(tombstones.data).toEqual([
        {
          id: changes[0]!.deadLetterId,
          deliveryId: third.id,
          appId: app.id,
          endpointId: ep,
          messageId: message.id,
          eventId: "evt-3",
          eventType: "invoice.paid",
          failureClass: "permanent",
          reason: "gave up (permanent)",
          at: T0 + 3 * SECOND,
        },
      ]);
      const [row] = await store.deadLetterSummary({});
      expect(row).toMatchObject({ depth: 2, overflowed: 1, lastOverflowAt: T0 + 3 * SECOND });

      // A replaying record still counts; a resolved one does not.
      await replayClaimed(store, first, T0 + HOUR);
      const open = (await store.listDeadLetters({ limit: 10, states: ["open"] })).data;
      await store.resolveDeadLetter({ id: open[0]!.id, actor: "ops", note: "n", now: T0 + HOUR });
      const kept = await deadLetter(store, app.id, { at: T0 + 2 * HOUR });
      expect(kept.state).toBe("open");
      expect((await store.deadLetterSummary({}))[0]).toMatchObject({ depth: 2, overflowed: 1 });
    });

    it("a delivery given up past the cap says why through its tombstone", async () => {
      const store = await t.withLimits({ maxOpenDeadLettersPerEndpoint: 1 });
      const { app } = await seedApp(store);
      const kept = await deadLetter(store, app.id, { at: T0 + SECOND });
      const { message } = await accept(store, app.id, { now: T0 + SECOND });
      const past = only(await claimAll(store, T0 + 2 * SECOND));
      const changes = await giveUp(store, past, T0 + 2 * SECOND, "permanent");
      expect(changes.map((c) => c.kind)).toEqual(["overflowed"]);
      expect(await store.deadLetterReasons(message.id, [past.id])).toEqual(
        new Map([[past.id, "gave up (permanent)"]]),
      );
      // Another message's delivery is not found through this one's tombstones.
      expect(await store.deadLetterReasons(kept.messageId, [past.id])).toEqual(new Map());
    });

    it("deleting an endpoint takes its records, their history and its tombstones along", async () => {
      const store = await t.withLimits({ maxOpenDeadLettersPerEndpoint: 1 });
      const { app, endpoints } = await seedApp(store);
      const record = await deadLetter(store, app.id, { at: T0 + SECOND });
      await accept(store, app.id, { now: T0 + SECOND });
      await giveUp(store, only(await claimAll(store, T0 + 2 * SECOND)), T0 + 2 * SECOND);
      await store.deleteEndpoint(app.id, endpoints[0]!.id);
      expect(await store.getDeadLetterRecord(record.id)).toBeNull();
      expect((await store.listDeadLetterOverflow({ limit: 10 })).data).toEqual([]);
      expect(await store.deadLetterSummary({})).toEqual([]);
    });
  });
}
