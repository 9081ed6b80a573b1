/**
 * What the dashboard reads and writes through the store: expiring tokens, a test event sent to
 * one endpoint only, the list of replay jobs, attempt buckets for charts and where the messages
 * of a page stand.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newId } from "../../../src/ids.js";
import {
  accept,
  aFailedAttempt,
  anAttempt,
  claimAll,
  HOUR,
  MINUTE,
  outcomeFor,
  SECOND,
  seedApp,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";
import { aNewJob } from "./dlq-fixtures.js";

const hashOf = (plain: string): string => createHash("sha256").update(plain).digest("hex");

export function dashboardBehaviour(t: StoreUnderTest): void {
  describe("dashboard reads", () => {
    it("keeps a token's expiry, and null for a token that never expires", async () => {
      const base = { scope: "app" as const, appId: "app_x", createdAt: T0, revokedAt: null };
      const portal = await t.store.createApiToken({
        ...base,
        id: newId("tok", T0),
        name: "portal",
        hash: hashOf("portal"),
        expiresAt: T0 + HOUR,
      });
      await t.store.createApiToken({
        ...base,
        id: newId("tok", T0),
        name: "ci",
        hash: hashOf("ci"),
      });
      expect(portal.expiresAt).toBe(T0 + HOUR);
      expect((await t.store.findApiTokenByHash(hashOf("portal")))?.expiresAt).toBe(T0 + HOUR);
      expect((await t.store.findApiTokenByHash(hashOf("ci")))?.expiresAt).toBeNull();
    });

    it("a message for one endpoint is delivered to that endpoint only", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const only = endpoints[1]!.id;
      const result = await accept(t.store, app.id, { onlyEndpointId: only });
      expect(result.deliveries).toBe(1);
      const claimed = await claimAll(t.store, T0);
      expect(claimed.map((d) => d.endpointId)).toEqual([only]);
    });

    it("lists replay jobs a page at a time, newest first when asked", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const job = await aNewJob(t.store, {
          id: newId("job", T0 + i * SECOND),
          task: "dlq.replay",
          // One job at a time per endpoint: each of its own.
          selection: { endpointId: `ep_${i}` },
          ratePerSecond: 5,
          canarySize: 0,
          canaryThreshold: 0.9,
          startAt: T0,
          createdBy: "ops",
          note: null,
          now: T0 + i * SECOND,
        });
        ids.push(job.id);
      }
      const first = await t.store.listReplayJobs({ limit: 2, order: "descending" });
      expect(first.data.map((j) => j.id)).toEqual([ids[2], ids[1]]);
      expect(first.done).toBe(false);
      const rest = await t.store.listReplayJobs({
        limit: 2,
        order: "descending",
        iterator: first.iterator,
      });
      expect(rest.data.map((j) => j.id)).toEqual([ids[0]]);
      expect(rest.done).toBe(true);
    });

    it("counts an endpoint's attempts in time buckets, with mean and slowest duration", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [ep, other] = endpoints.map((e) => e.id);
      for (let i = 0; i < 3; i++) await accept(t.store, app.id);
      const claimed = await claimAll(t.store, T0);
      const mine = claimed.filter((d) => d.endpointId === ep);
      const at = [T0 + 10 * SECOND, T0 + 20 * SECOND, T0 + MINUTE + 5 * SECOND];
      await t.store.recordAttempts([
        outcomeFor(mine[0]!, {
          at: at[0]!,
          attempt: anAttempt(at[0]!, { durationMs: 100 }),
          next: { kind: "succeeded" },
        }),
        outcomeFor(mine[1]!, {
          at: at[1]!,
          attempt: aFailedAttempt(at[1]!, { durationMs: 300 }),
          next: { kind: "retry", at: T0 + HOUR, delayMs: HOUR },
        }),
        outcomeFor(mine[2]!, {
          at: at[2]!,
          attempt: anAttempt(at[2]!, { durationMs: 50 }),
          next: { kind: "succeeded" },
        }),
        ...claimed
          .filter((d) => d.endpointId === other)
          .map((d) => outcomeFor(d, { at: at[0]!, next: { kind: "succeeded" } })),
      ]);
      const buckets = await t.store.attemptBuckets({
        endpointId: ep!,
        since: T0,
        bucketMs: MINUTE,
      });
      expect(buckets).toEqual([
        { start: T0, attempts: 2, successes: 1, meanDurationMs: 200, maxDurationMs: 300 },
        { start: T0 + MINUTE, attempts: 1, successes: 1, meanDurationMs: 50, maxDurationMs: 50 },
      ]);
      const later = await t.store.attemptBuckets({
        endpointId: ep!,
        since: T0 + MINUTE,
        bucketMs: MINUTE,
      });
      expect(later.map((b) => b.attempts)).toEqual([1]);
    });

    it("counts an endpoint's messages by their latest delivery's state, within a time window", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [ep, other] = endpoints.map((e) => e.id) as [string, string];
      const sent = [];
      for (let i = 0; i < 4; i++)
        sent.push(await accept(t.store, app.id, { now: T0 + i * SECOND }));
      await accept(t.store, app.id, { now: T0 + 4 * SECOND, dueAt: T0 + HOUR });
      const claimed = (await claimAll(t.store, T0 + 4 * SECOND)).filter((d) => d.endpointId === ep);
      const [ok, failed, resent] = claimed;
      await t.store.recordAttempts([
        outcomeFor(ok!, { at: T0 + 5 * SECOND, next: { kind: "succeeded" } }),
        ...[failed!, resent!].map((d) =>
          outcomeFor(d, {
            at: T0 + 5 * SECOND,
            attempt: aFailedAttempt(T0 + 5 * SECOND, { status: 400, outcome: "permanent" }),
            next: { kind: "dead", failureClass: "permanent", reason: "HTTP 400" },
          }),
        ),
      ]);
      // A resend of a dead message stands for it now: pending, not failed.
      await t.store.enqueueResend({
        id: newId("dlv"),
        appId: app.id,
        messageId: resent!.messageId,
        endpointId: ep,
        now: T0 + 6 * SECOND,
      });
      // The fourth message is claimed, in flight; the fifth waits for its time.
      const window = { appId: app.id, since: T0 };
      expect(await t.store.endpointMessageStates({ ...window, endpointId: ep })).toEqual({
        succeeded: 1,
        dead: 1,
        pending: 2,
        inflight: 1,
      });
      // Counted by when the message was made, not when its latest delivery was.
      expect(
        await t.store.endpointMessageStates({ ...window, endpointId: ep, since: T0 + 2 * SECOND }),
      ).toEqual({ succeeded: 0, dead: 0, pending: 2, inflight: 1 });
      expect(
        await t.store.endpointMessageStates({ ...window, endpointId: ep, until: T0 + 2 * SECOND }),
      ).toEqual({ succeeded: 1, dead: 1, pending: 0, inflight: 0 });
      expect(sent[2]!.message.id).toBe(resent!.messageId);
      expect((await t.store.endpointMessageStates({ ...window, endpointId: other })).inflight).toBe(
        4,
      );
    });

    it("says where each message of a page stands at its endpoints, by its latest delivery to each", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [ep1, ep2] = endpoints.map((e) => e.id) as [string, string];
      const other = await seedApp(t.store, [{}]);
      const delivered = (await accept(t.store, app.id)).message.id;
      const failed = (await accept(t.store, app.id)).message.id;
      const resent = (await accept(t.store, app.id)).message.id;
      const elsewhere = (await accept(t.store, other.app.id)).message.id;
      const claimed = await claimAll(t.store, T0);
      const dead = { kind: "dead", failureClass: "exhausted", reason: "HTTP 503" } as const;
      const at = T0 + SECOND;
      await t.store.recordAttempts(
        claimed
          .filter((d) => d.messageId !== elsewhere)
          .filter((d) => d.messageId !== resent || d.endpointId === ep1)
          .map((d) =>
            outcomeFor(d, {
              at,
              ...(d.messageId === delivered || d.endpointId === ep2
                ? { next: { kind: "succeeded" } }
                : { attempt: aFailedAttempt(at), next: dead }),
            }),
          ),
      );
      // A resend stands for the dead delivery before it; the other endpoint is still in flight.
      await t.store.enqueueResend({
        id: newId("dlv"),
        appId: app.id,
        messageId: resent,
        endpointId: ep1,
        now: T0 + 2 * SECOND,
      });
      const waiting = (await accept(t.store, app.id, { now: at, dueAt: T0 + HOUR })).message.id;
      const states = await t.store.messageDeliveryStates(app.id, [
        delivered,
        failed,
        resent,
        waiting,
        elsewhere,
      ]);
      const none = { succeeded: 0, dead: 0, pending: 0, inflight: 0 };
      expect(Object.fromEntries(states)).toEqual({
        [delivered]: { ...none, succeeded: 2 },
        [failed]: { ...none, succeeded: 1, dead: 1 },
        [resent]: { ...none, pending: 1, inflight: 1 },
        [waiting]: { ...none, pending: 2 },
        // Another application's message is not this application's to read.
        [elsewhere]: none,
      });
      const theirs = await t.store.messageDeliveryStates(other.app.id, [elsewhere, delivered]);
      expect(theirs.get(elsewhere)).toEqual({ ...none, inflight: 1 });
      expect(theirs.get(delivered)).toEqual(none);
      expect((await t.store.messageDeliveryStates(app.id, [])).size).toBe(0);
    });

    it("counts an endpoint's deliveries waiting now, whatever their age, up to the bound asked", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [ep, other] = endpoints.map((e) => e.id) as [string, string];
      // Two messages a month old still waiting for a retry, one waiting for its deliverAt, one
      // due now; then one claimed (in flight, not waiting) and one to the other endpoint.
      const month = 30 * 24 * HOUR;
      const old = await accept(t.store, app.id, { now: T0 - month, onlyEndpointId: ep });
      await accept(t.store, app.id, { now: T0 - month, onlyEndpointId: ep });
      await accept(t.store, app.id, { now: T0, dueAt: T0 + 7 * 24 * HOUR, onlyEndpointId: ep });
      await accept(t.store, app.id, { now: T0, onlyEndpointId: ep });
      const [claimed] = await t.store.claimDue({
        now: T0,
        limit: 1,
        excludeEndpoints: [],
        leaseUntil: T0 + MINUTE,
        endpointId: ep,
      });
      await accept(t.store, app.id, { now: T0, onlyEndpointId: other });
      expect(claimed!.messageId).toBe(old.message.id);
      await t.store.recordAttempts([
        outcomeFor(claimed!, {
          at: T0,
          attempt: aFailedAttempt(T0),
          next: { kind: "retry", at: T0 + 3 * 24 * HOUR, delayMs: 3 * 24 * HOUR },
        }),
      ]);
      expect(await t.store.countWaitingDeliveries(ep, 10_000)).toBe(4);
      // Stops at the bound.
      expect(await t.store.countWaitingDeliveries(ep, 3)).toBe(3);
      expect(await t.store.countWaitingDeliveries(other, 10_000)).toBe(1);
      await claimAll(t.store, T0, [ep]);
      expect(await t.store.countWaitingDeliveries(other, 10_000)).toBe(0);
      expect(await t.store.countWaitingDeliveries("ep_none", 10_000)).toBe(0);
    });
  });
}
