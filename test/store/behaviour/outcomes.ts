/** Recording what attempts did: success, retry, dead letters, endpoint stats, atomic batches. */
import { describe, expect, it } from "vitest";
import type { DeliveryOutcome } from "../../../src/store/port.js";
import {
  accept,
  aFailedAttempt,
  anApplication,
  anAttempt,
  claimAll,
  HOUR,
  MINUTE,
  only,
  outcomeFor,
  retried,
  SECOND,
  seedApp,
  succeeded,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";

const SIGNATURE = {
  "webhook-id": "msg_x",
  "webhook-timestamp": "1767225600",
  "webhook-signature": "v1,c2lnbmF0dXJl v1,b2xkZXI=",
};

export function outcomeBehaviour(t: StoreUnderTest): void {
  describe("recordAttempts", () => {
    it("a success marks the delivery succeeded and keeps the attempt", async () => {
      const { app } = await seedApp(t.store);
      await accept(t.store, app.id);
      const claimed = only(await claimAll(t.store, T0));
      const at = T0 + SECOND;
      const attempt = anAttempt(at, {
        status: 204,
        durationMs: 87,
        responseSnippet: "merci ✓",
        trigger: "first",
      });
      await t.store.recordAttempts([
        outcomeFor(claimed, { at, attempt, next: { kind: "succeeded" } }),
      ]);

      expect(await t.store.getDelivery(claimed.id)).toMatchObject({
        state: "succeeded",
        attemptCount: 1,
        firstAttemptAt: at,
        lastAttemptAt: at,
      });
      const stored = {
        ...attempt,
        deliveryId: claimed.id,
        appId: app.id,
        messageId: claimed.messageId,
        endpointId: claimed.endpointId,
      };
      expect((await t.store.listAttempts({ appId: app.id, limit: 10 })).data).toEqual([stored]);
      expect(await t.store.findAttempt(app.id, attempt.id)).toEqual(stored);
      const other = await t.store.createApplication(anApplication());
      expect(await t.store.findAttempt(other.id, attempt.id)).toBeNull();
      expect(await t.store.getEndpointStats(claimed.endpointId)).toEqual({
        retryAfter: { honoured: 0, capped: 0, ignored: 0 },
        lastSuccessAt: at,
      });
      expect(await claimAll(t.store, T0 + HOUR)).toEqual([]);
    });

    it("a retry puts the delivery back to pending, claimable again only once due", async () => {
      const { app } = await seedApp(t.store);
      await accept(t.store, app.id);
      const first = only(await claimAll(t.store, T0));
      const at1 = T0 + SECOND;
      await t.store.recordAttempts([retried(first, at1, at1 + MINUTE)]);
      expect(await t.store.getDelivery(first.id)).toMatchObject({
        state: "pending",
        attemptCount: 1,
        nextAttemptAt: at1 + MINUTE,
        firstAttemptAt: at1,
        lastAttemptAt: at1,
        lastDelayMs: MINUTE,
      });
      expect(await claimAll(t.store, at1 + MINUTE - 1)).toEqual([]);
      const second = only(await claimAll(t.store, at1 + MINUTE));
      expect(second).toMatchObject({
        id: first.id,
        attemptCount: 1,
        firstAttemptAt: at1,
        lastDelayMs: MINUTE,
        dueAt: at1 + MINUTE,
      });

      const at2 = at1 + MINUTE + SECOND;
      await t.store.recordAttempts([retried(second, at2, at2 + 5 * MINUTE)]);
      expect(await t.store.getDelivery(first.id)).toMatchObject({
        state: "pending",
        attemptCount: 2,
        firstAttemptAt: at1,
        lastAttemptAt: at2,
        nextAttemptAt: at2 + 5 * MINUTE,
        lastDelayMs: 5 * MINUTE,
      });
      const attempts = await t.store.listAttempts({ appId: app.id, limit: 10 });
      expect(attempts.data.map((a) => a.trigger)).toEqual(["retry", "first"]);
    });

    it("an exhausted delivery is dead-lettered with what a replay needs", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const { message } = await accept(t.store, app.id, {
        eventId: "evt-42",
        eventType: "invoice.failed",
      });
      const first = only(await claimAll(t.store, T0));
      const at1 = T0 + SECOND;
      await t.store.recordAttempts([retried(first, at1, at1 + MINUTE)]);
      const last = only(await claimAll(t.store, at1 + MINUTE));
      const at2 = at1 + MINUTE + 2 * SECOND;
      await t.store.recordAttempts([
        outcomeFor(last, {
          at: at2,
          attempt: aFailedAttempt(at2, { trigger: "retry", status: 503 }),
          next: {
            kind: "dead",
            failureClass: "exhausted",
            reason: "retries exhausted after 2 attempts",
          },
          signatureHeaders: SIGNATURE,
        }),
      ]);

      expect(await t.store.getDelivery(first.id)).toMatchObject({ state: "dead", attemptCount: 2 });
      const dead = await t.store.findDeadLetterByDelivery(first.id);
      expect(dead).toMatchObject({
        deliveryId: first.id,
        appId: app.id,
        endpointId: endpoints[0]!.id,
        messageId: message.id,
        eventId: "evt-42",
        eventType: "invoice.failed",
        failureClass: "exhausted",
        reason: "retries exhausted after 2 attempts",
        finalStatus: 503,
        finalError: null,
        signatureHeaders: SIGNATURE,
        firstAttemptAt: at1,
        lastAttemptAt: at2,
        state: "open",
        replayCount: 0,
      });
      expect(dead?.id).toMatch(/^dlq_/);
      const byApp = await t.store.listDeadLetters({ appId: app.id, limit: 10 });
      expect(byApp.data).toEqual([dead]);
      const byEndpoint = await t.store.listDeadLetters({ endpointId: endpoints[0]!.id, limit: 10 });
      expect(byEndpoint.data).toEqual([dead]);
      expect(await claimAll(t.store, T0 + HOUR)).toEqual([]);
    });

    it("a permanent failure is dead-lettered at once, keeping a transport error", async () => {
      const { app } = await seedApp(t.store);
      await accept(t.store, app.id);
      const claimed = only(await claimAll(t.store, T0));
      const at = T0 + SECOND;
      await t.store.recordAttempts([
        outcomeFor(claimed, {
          at,
          attempt: aFailedAttempt(at, {
            status: null,
            error: "refused_target",
            errorDetail: "10.0.0.1 is a private address",
            responseSnippet: "",
            outcome: "permanent",
          }),
          next: { kind: "dead", failureClass: "permanent", reason: "target refused" },
          signatureHeaders: SIGNATURE,
        }),
      ]);
      expect(await t.store.getDelivery(claimed.id)).toMatchObject({
        state: "dead",
        attemptCount: 1,
      });
      const dead = await t.store.findDeadLetterByDelivery(claimed.id);
      expect(dead).toMatchObject({
        failureClass: "permanent",
        reason: "target refused",
        finalStatus: null,
        firstAttemptAt: at,
        lastAttemptAt: at,
        signatureHeaders: SIGNATURE,
      });
      expect(dead?.finalError).toContain("refused_target");
    });

    it("a delivery ended without an attempt is dead-lettered with no attempt row", async () => {
      const { app } = await seedApp(t.store);
      await accept(t.store, app.id);
      const claimed = only(await claimAll(t.store, T0));
      const at = T0 + SECOND;
      await t.store.recordAttempts([
        outcomeFor(claimed, {
          at,
          attempt: null,
          next: { kind: "dead", failureClass: "permanent", reason: "endpoint disabled" },
        }),
      ]);
      expect(await t.store.getDelivery(claimed.id)).toMatchObject({
        state: "dead",
        attemptCount: 0,
        firstAttemptAt: null,
      });
      expect((await t.store.listAttempts({ appId: app.id, limit: 10 })).data).toEqual([]);
      expect(await t.store.findDeadLetterByDelivery(claimed.id)).toMatchObject({
        reason: "endpoint disabled",
        failureClass: "permanent",
        firstAttemptAt: null,
        finalStatus: null,
        finalError: null,
      });
    });

    it("an attempt-less end after earlier attempts keeps their count and first time", async () => {
      const { app } = await seedApp(t.store);
      await accept(t.store, app.id);
      const at1 = T0 + SECOND;
      await t.store.recordAttempts([retried(only(await claimAll(t.store, T0)), at1, at1 + MINUTE)]);
      const claimed = only(await claimAll(t.store, at1 + MINUTE));
      await t.store.recordAttempts([
        outcomeFor(claimed, {
          at: at1 + 2 * MINUTE,
          attempt: null,
          next: { kind: "dead", failureClass: "permanent", reason: "endpoint disabled" },
        }),
      ]);
      expect(await t.store.getDelivery(claimed.id)).toMatchObject({
        state: "dead",
        attemptCount: 1,
      });
      expect((await t.store.listAttempts({ appId: app.id, limit: 10 })).data).toHaveLength(1);
      expect((await t.store.findDeadLetterByDelivery(claimed.id))?.firstAttemptAt).toBe(at1);
    });

    it("an attempt-less end keeps the last real attempt time on the dead letter", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [tried, untried] = endpoints.map((e) => e.id) as [string, string];
      await accept(t.store, app.id);
      const at1 = T0 + SECOND;
      const first = (await claimAll(t.store, T0, [untried]))[0]!;
      await t.store.recordAttempts([retried(first, at1, at1 + MINUTE)]);
      const end = at1 + 2 * MINUTE;
      const claimed = await claimAll(t.store, end);
      await t.store.recordAttempts(
        claimed.map((d) =>
          outcomeFor(d, {
            at: end,
            attempt: null,
            next: { kind: "dead", failureClass: "permanent", reason: "endpoint disabled" },
          }),
        ),
      );
      const deadOf = (endpointId: string) =>
        t.store.findDeadLetterByDelivery(claimed.find((d) => d.endpointId === endpointId)!.id);
      expect(await deadOf(tried)).toMatchObject({ firstAttemptAt: at1, lastAttemptAt: at1 });
      expect(await deadOf(untried)).toMatchObject({ firstAttemptAt: null, lastAttemptAt: null });
    });

    it("an outcome asking to disable the endpoint disables it with the reason", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      await accept(t.store, app.id);
      const claimed = (await claimAll(t.store, T0)).find((d) => d.endpointId === endpoints[0]!.id)!;
      const at = T0 + SECOND;
      await t.store.recordAttempts([
        outcomeFor(claimed, {
          at,
          attempt: aFailedAttempt(at, { status: 410, outcome: "permanent" }),
          next: { kind: "dead", failureClass: "permanent", reason: "HTTP 410" },
          disableEndpoint: "the endpoint answered 410 Gone",
        }),
      ]);
      const disabled = await t.store.getEndpoint(endpoints[0]!.id);
      expect(disabled).toMatchObject({
        disabled: true,
        disabledReason: "the endpoint answered 410 Gone",
      });
      // Moved past what a reader saw, even by an attempt timed before it: an update made from
      // that read must not re-enable the endpoint unseen.
      expect(disabled!.updatedAt).toBeGreaterThan(endpoints[0]!.updatedAt);
      expect(
        await t.store.updateEndpoint(
          { ...endpoints[0]!, description: "stale" },
          endpoints[0]!.updatedAt,
        ),
      ).toBe(false);
      expect((await t.store.getEndpoint(endpoints[1]!.id))?.disabled).toBe(false);
      const next = await accept(t.store, app.id, { now: at });
      expect(next.deliveries).toBe(1);
    });

    it("counts Retry-After use per endpoint", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [a, b] = endpoints.map((e) => e.id) as [string, string];
      const uses = [["honoured", "capped"], ["honoured", "ignored"], ["honoured"]] as const;
      for (const [round, batch] of uses.entries()) {
        const now = T0 + round * HOUR;
        await accept(t.store, app.id, { now });
        const claimed = await claimAll(t.store, now);
        const at = now + SECOND;
        await t.store.recordAttempts(
          claimed.map((d) =>
            outcomeFor(d, {
              at,
              attempt: aFailedAttempt(at, { status: 429, outcome: "rate_limited" }),
              next: { kind: "retry", at: at + 10 * HOUR, delayMs: 10 * HOUR },
              retryAfter: d.endpointId === a ? batch[0] : (batch[1] ?? null),
            }),
          ),
        );
      }
      expect((await t.store.getEndpointStats(a)).retryAfter).toEqual({
        honoured: 3,
        capped: 0,
        ignored: 0,
      });
      expect((await t.store.getEndpointStats(b)).retryAfter).toEqual({
        honoured: 0,
        capped: 1,
        ignored: 1,
      });
    });

    it("keeps the wait an attempt's Retry-After asked for, alone or beside a dead letter", async () => {
      const { app } = await seedApp(t.store, [{}, {}]);
      // Two batches: retries alone (one statement on PostgreSQL), then beside a delivery given up
      // on (a transaction): each way of writing attempts keeps it.
      for (const [round, giveUpOne] of [false, true].entries()) {
        const now = T0 + round * HOUR;
        const { message } = await accept(t.store, app.id, { now });
        const claimed = await claimAll(t.store, now);
        const [asked, other] = claimed.filter((d) => d.messageId === message.id);
        const at = now + SECOND;
        const attempt = aFailedAttempt(at, { retryAfterMs: 2 * MINUTE });
        await t.store.recordAttempts([
          outcomeFor(asked!, {
            at,
            attempt,
            next: { kind: "retry", at: at + 2 * MINUTE, delayMs: 2 * MINUTE },
            retryAfter: "honoured",
          }),
          giveUpOne
            ? outcomeFor(other!, {
                at,
                attempt: aFailedAttempt(at, { outcome: "permanent", status: 400 }),
                next: { kind: "dead", failureClass: "permanent", reason: "HTTP 400" },
              })
            : retried(other!, at, at + 5 * SECOND),
        ]);
        expect((await t.store.findAttempt(app.id, attempt.id))?.retryAfterMs).toBe(2 * MINUTE);
        const page = await t.store.listAttempts({
          appId: app.id,
          messageId: message.id,
          limit: 10,
        });
        expect(page.data.map((a) => a.retryAfterMs).sort()).toEqual([2 * MINUTE, null]);
      }
    });

    it("keeps why an attempt's Retry-After was ignored, alone or beside a dead letter", async () => {
      const { app } = await seedApp(t.store, [{}, {}, {}]);
      const tooLong = { reason: "too-long", askedMs: 30 * HOUR } as const;
      const malformed = { reason: "malformed", value: "soon, \u00e9t\u00e9 'quoted'" } as const;
      // Two batches: retries alone (one statement on PostgreSQL), then beside a delivery given up
      // on (a transaction): each way of writing attempts keeps it.
      for (const [round, giveUpOne] of [false, true].entries()) {
        const now = T0 + round * HOUR;
        const { message } = await accept(t.store, app.id, { now });
        const claimed = await claimAll(t.store, now);
        const [long, bad, other] = claimed.filter((d) => d.messageId === message.id);
        const at = now + SECOND;
        const ignored = (d: typeof long, attempt: ReturnType<typeof aFailedAttempt>) =>
          outcomeFor(d!, {
            at,
            attempt,
            next: { kind: "retry", at: at + 5 * SECOND, delayMs: 5 * SECOND },
            retryAfter: "ignored",
          });
        const longAttempt = aFailedAttempt(at, { retryAfterIgnored: tooLong });
        const badAttempt = aFailedAttempt(at, { retryAfterIgnored: malformed });
        await t.store.recordAttempts([
          ignored(long, longAttempt),
          ignored(bad, badAttempt),
          giveUpOne
            ? outcomeFor(other!, {
                at,
                attempt: aFailedAttempt(at, { outcome: "permanent", status: 400 }),
                next: { kind: "dead", failureClass: "permanent", reason: "HTTP 400" },
              })
            : retried(other!, at, at + 5 * SECOND),
        ]);
        expect(await t.store.findAttempt(app.id, longAttempt.id)).toMatchObject({
          retryAfterMs: null,
          retryAfterIgnored: tooLong,
        });
        expect((await t.store.findAttempt(app.id, badAttempt.id))?.retryAfterIgnored).toEqual(
          malformed,
        );
        const page = await t.store.listAttempts({
          appId: app.id,
          messageId: message.id,
          limit: 10,
        });
        const byId = new Map(page.data.map((a) => [a.id, a.retryAfterIgnored]));
        expect(byId.get(longAttempt.id)).toEqual(tooLong);
        expect(byId.get(badAttempt.id)).toEqual(malformed);
        expect([...byId.values()].filter((v) => v === null)).toHaveLength(1);
      }
    });

    it("lastSuccessAt stays null while Retry-After is counted without a success", async () => {
      const { app, endpoints } = await seedApp(t.store);
      for (const round of [0, 1]) {
        const now = T0 + round * HOUR;
        await accept(t.store, app.id, { now });
        const claimed = only(await claimAll(t.store, now));
        const at = now + SECOND;
        await t.store.recordAttempts([
          outcomeFor(claimed, {
            at,
            attempt: aFailedAttempt(at, { status: 429, outcome: "rate_limited" }),
            next: { kind: "retry", at: at + 10 * HOUR, delayMs: 10 * HOUR },
            retryAfter: "honoured",
          }),
        ]);
      }
      expect(await t.store.getEndpointStats(endpoints[0]!.id)).toEqual({
        retryAfter: { honoured: 2, capped: 0, ignored: 0 },
        lastSuccessAt: null,
      });
    });

    it("lastSuccessAt is the time of the latest success", async () => {
      const { app, endpoints } = await seedApp(t.store);
      expect((await t.store.getEndpointStats(endpoints[0]!.id)).lastSuccessAt).toBeNull();
      for (const at of [T0 + SECOND, T0 + HOUR]) {
        await accept(t.store, app.id, { now: at - SECOND });
        await t.store.recordAttempts([succeeded(only(await claimAll(t.store, at)), at)]);
      }
      expect((await t.store.getEndpointStats(endpoints[0]!.id)).lastSuccessAt).toBe(T0 + HOUR);
    });

    it("an outcome for a delivery that is no longer claimed writes nothing", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      await accept(t.store, app.id);
      const claimed = await claimAll(t.store, T0);
      const [ofDeleted, ofKept] = [
        claimed.find((d) => d.endpointId === endpoints[0]!.id)!,
        claimed.find((d) => d.endpointId === endpoints[1]!.id)!,
      ];
      await t.store.deleteEndpoint(app.id, endpoints[0]!.id);
      const at = T0 + SECOND;
      await t.store.recordAttempts([
        outcomeFor(ofDeleted, {
          at,
          next: { kind: "dead", failureClass: "permanent", reason: "HTTP 410" },
          attempt: aFailedAttempt(at, { status: 410, outcome: "permanent" }),
          disableEndpoint: "gone",
          retryAfter: "honoured",
        }),
      ]);
      expect(await t.store.getDelivery(ofDeleted.id)).toBeNull();
      expect(await t.store.findDeadLetterByDelivery(ofDeleted.id)).toBeNull();
      expect((await t.store.listAttempts({ appId: app.id, limit: 10 })).data).toEqual([]);
      expect(await t.store.getEndpointStats(endpoints[0]!.id)).toEqual({
        retryAfter: { honoured: 0, capped: 0, ignored: 0 },
        lastSuccessAt: null,
      });

      // A delivery recorded once already keeps its first outcome.
      await t.store.recordAttempts([succeeded(ofKept, at)]);
      await t.store.recordAttempts([retried(ofKept, at + SECOND, at + HOUR)]);
      expect(await t.store.getDelivery(ofKept.id)).toMatchObject({
        state: "succeeded",
        attemptCount: 1,
      });
      expect((await t.store.listAttempts({ appId: app.id, limit: 10 })).data).toHaveLength(1);
    });

    it("a success recorded twice counts once in the endpoint's stats", async () => {
      const { app, endpoints } = await seedApp(t.store);
      await accept(t.store, app.id);
      const claimed = only(await claimAll(t.store, T0));
      for (const at of [T0 + SECOND, T0 + HOUR]) {
        await t.store.recordAttempts([{ ...succeeded(claimed, at), retryAfter: "honoured" }]);
      }
      expect(await t.store.getEndpointStats(endpoints[0]!.id)).toEqual({
        retryAfter: { honoured: 1, capped: 0, ignored: 0 },
        lastSuccessAt: T0 + SECOND,
      });
    });

    it("applies a batch of many outcomes in full", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}, {}]);
      for (let i = 0; i < 10; i++) await accept(t.store, app.id, { now: T0 + i });
      const claimed = await claimAll(t.store, T0 + MINUTE);
      expect(claimed).toHaveLength(30);
      const at = T0 + 2 * MINUTE;
      const kinds = ["succeeded", "retry", "dead"] as const;
      const outcomes: DeliveryOutcome[] = claimed.map((d, i) => {
        const kind = kinds[i % 3]!;
        if (kind === "succeeded") return succeeded(d, at);
        if (kind === "retry") return retried(d, at, at + HOUR);
        return outcomeFor(d, {
          at,
          attempt: aFailedAttempt(at, { status: 400, outcome: "permanent" }),
          next: { kind: "dead", failureClass: "permanent", reason: "HTTP 400" },
        });
      });
      await t.store.recordAttempts(outcomes);

      for (const [i, d] of claimed.entries()) {
        const expected = ["succeeded", "pending", "dead"][i % 3];
        expect(await t.store.getDelivery(d.id)).toMatchObject({ state: expected, attemptCount: 1 });
      }
      const attempts = await t.store.listAttempts({ appId: app.id, limit: 100 });
      expect(attempts.data).toHaveLength(30);
      const dead = await t.store.listDeadLetters({ appId: app.id, limit: 100 });
      expect(dead.data).toHaveLength(10);
      for (const ep of endpoints) {
        const perEndpoint = await t.store.listAttempts({
          appId: app.id,
          endpointId: ep.id,
          limit: 100,
        });
        expect(perEndpoint.data).toHaveLength(10);
      }
    });

    it("says which outcomes it kept: none of a delivery no longer claimed", async () => {
      const { app } = await seedApp(t.store, [{}, {}, {}]);
      await accept(t.store, app.id);
      const [held, putBack, alsoPutBack] = await claimAll(t.store, T0);
      const at = T0 + SECOND;
      await t.store.releaseDeliveries(
        [putBack!, alsoPutBack!].map((d) => ({ deliveryId: d.id, at, claimedBy: d.claimedBy })),
      );
      // A batch of plain outcomes, and one that would make a dead letter; a delivery's second
      // outcome in a batch is not kept either.
      expect(
        await t.store.recordAttempts([
          retried(held!, at, at + HOUR),
          succeeded(putBack!, at),
          succeeded(held!, at),
        ]),
      ).toEqual({ kept: [held!.id], changes: [] });
      const dead = outcomeFor(alsoPutBack!, {
        at,
        attempt: aFailedAttempt(at, { status: 400, outcome: "permanent" }),
        next: { kind: "dead", failureClass: "permanent", reason: "HTTP 400" },
      });
      expect(await t.store.recordAttempts([dead])).toEqual({ kept: [], changes: [] });
      expect(await t.store.listDeadLetters({ appId: app.id, limit: 10 })).toMatchObject({
        data: [],
      });
      const attempts = (await t.store.listAttempts({ appId: app.id, limit: 10 })).data;
      expect(attempts.map((a) => a.deliveryId)).toEqual([held!.id]);
    });

    it("an outcome recorded again (its commit's answer was lost) is kept once", async () => {
      const { app } = await seedApp(t.store, [{}, {}]);
      await accept(t.store, app.id);
      const [plainOne, deadOne] = await claimAll(t.store, T0);
      const at = T0 + SECOND;
      const ok = succeeded(plainOne!, at);
      const dead = outcomeFor(deadOne!, {
        at,
        attempt: aFailedAttempt(at, { status: 400, outcome: "permanent" }),
        next: { kind: "dead", failureClass: "permanent", reason: "HTTP 400" },
      });
      await t.store.recordAttempts([ok]);
      await t.store.recordAttempts([dead]);
      expect((await t.store.recordAttempts([ok])).kept).toEqual([plainOne!.id]);
      expect((await t.store.recordAttempts([dead, ok])).kept.sort()).toEqual(
        [plainOne!.id, deadOne!.id].sort(),
      );
      expect((await t.store.listAttempts({ appId: app.id, limit: 10 })).data).toHaveLength(2);
      expect((await t.store.listDeadLetters({ appId: app.id, limit: 10 })).data).toHaveLength(1);
    });

    it("a batch that fails part-way leaves every delivery as it was", async () => {
      const { app } = await seedApp(t.store, [{}, {}]);
      await accept(t.store, app.id);
      const [good, bad] = await claimAll(t.store, T0);
      const at = T0 + SECOND;
      // An attempt without a URL cannot be stored, so the second outcome fails the batch.
      const broken = anAttempt(at, { url: null as unknown as string });
      await expect(
        t.store.recordAttempts([
          succeeded(good!, at),
          outcomeFor(bad!, { at, attempt: broken, next: { kind: "succeeded" } }),
        ]),
      ).rejects.toThrow();

      for (const d of [good!, bad!]) {
        expect(await t.store.getDelivery(d.id)).toMatchObject({
          state: "inflight",
          attemptCount: 0,
        });
      }
      expect((await t.store.listAttempts({ appId: app.id, limit: 10 })).data).toEqual([]);
      expect((await t.store.getEndpointStats(good!.endpointId)).lastSuccessAt).toBeNull();

      await t.store.recordAttempts([succeeded(good!, at), succeeded(bad!, at)]);
      expect((await t.store.listAttempts({ appId: app.id, limit: 10 })).data).toHaveLength(2);
    });
  });
}
