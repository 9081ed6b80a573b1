/** Retention: what outlives the retention period goes, in small batches; what is needed stays. */
import { describe, expect, it } from "vitest";
import { newId } from "../../../src/ids.js";
import type { ApiToken } from "../../../src/domain/types.js";
import type { PruneResult, Store } from "../../../src/store/port.js";
import {
  accept,
  claimAll,
  HOUR,
  outcomeFor,
  retried,
  SECOND,
  seedApp,
  succeeded,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";
import { aNewJob, deadLetter, giveUp } from "./dlq-fixtures.js";

const DAY = 24 * HOUR;
const RETENTION = 30 * DAY;

/** Prunes until done; returns the totals and how many calls (transactions) it took. */
async function pruneAll(store: Store, now: number, batchSize = 500) {
  const totals: Omit<PruneResult, "done" | "messagesReached"> = {
    deadLetters: 0,
    overflow: 0,
    replayJobs: 0,
    messages: 0,
    idempotencyKeys: 0,
    circuitTransitions: 0,
    apiTokens: 0,
  };
  let messagesFrom: number | undefined;
  for (let calls = 1; calls < 1000; calls++) {
    const step = await store.pruneExpired({ now, retentionMs: RETENTION, batchSize, messagesFrom });
    messagesFrom = step.messagesReached ?? undefined;
    const touched = Object.entries(step).filter(
      ([k, v]) => k !== "done" && k !== "messagesReached" && v !== 0,
    );
    // One kind per call, never more than the batch.
    expect(touched.length).toBeLessThanOrEqual(1);
    for (const [k, v] of touched) {
      expect(v).toBeLessThanOrEqual(batchSize);
      totals[k as keyof typeof totals] += v as number;
    }
    if (step.done) return { totals, calls };
  }
  throw new Error("pruning never finished");
}

export function pruningBehaviour(t: StoreUnderTest): void {
  describe("pruneExpired", () => {
    it("prunes records closed longer than the retention period; open ones keep their message", async () => {
      const { app } = await seedApp(t.store);
      const resolved = await deadLetter(t.store, app.id, { at: T0 + SECOND });
      const open = await deadLetter(t.store, app.id, { at: T0 + 2 * SECOND });
      const abandoned = await deadLetter(t.store, app.id, { at: T0 + 3 * SECOND });
      await t.store.resolveDeadLetter({ id: resolved.id, actor: "ops", note: "n", now: T0 + HOUR });
      await t.store.abandonDeadLetter({ id: abandoned.id, actor: "ops", note: "n", now: T0 + DAY });

      const before = await pruneAll(t.store, T0 + HOUR + RETENTION - 1);
      expect(before.totals).toMatchObject({ deadLetters: 0, messages: 0 });

      const after = await pruneAll(t.store, T0 + HOUR + RETENTION + 1);
      expect(after.totals).toMatchObject({ deadLetters: 1, messages: 1 });
      expect(await t.store.getDeadLetterRecord(resolved.id)).toBeNull();
      expect(await t.store.findMessage(app.id, resolved.messageId)).toBeNull();
      expect(await t.store.getDelivery(resolved.deliveryId)).toBeNull();
      // Open records are never pruned, and their payload stays with them.
      const kept = await t.store.getDeadLetterRecord(open.id);
      expect(kept!.payload).not.toBeNull();
      expect(kept!.attempts).toHaveLength(1);
      expect(await t.store.getDeadLetter(abandoned.id)).not.toBeNull();

      await pruneAll(t.store, T0 + DAY + RETENTION + 1);
      expect(await t.store.getDeadLetter(abandoned.id)).toBeNull();
      expect(await t.store.getDeadLetter(open.id)).not.toBeNull();
    });

    it("prunes old messages with their deliveries and attempts, batch by batch, not while one is due", async () => {
      const { app } = await seedApp(t.store);
      for (let i = 0; i < 6; i++) await accept(t.store, app.id, { now: T0 });
      const { message: waiting } = await accept(t.store, app.id, { now: T0 });
      const claimed = await claimAll(t.store, T0);
      await t.store.recordAttempts(
        claimed.map((d) =>
          d.messageId === waiting.id ? retried(d, T0, T0 + 40 * DAY) : succeeded(d, T0),
        ),
      );
      const { totals, calls } = await pruneAll(t.store, T0 + RETENTION + 1, 4);
      expect(totals.messages).toBe(6);
      expect(calls).toBeGreaterThanOrEqual(7);
      const left = await t.store.listMessages(app.id, { limit: 10 });
      expect(left.data.map((m) => m.id)).toEqual([waiting.id]);
      const attempts = await t.store.listAttempts({ appId: app.id, limit: 10 });
      expect(attempts.data.map((a) => a.messageId)).toEqual([waiting.id]);
      expect(await t.store.listDeliveries(waiting.id)).toHaveLength(1);
    });

    it("keeps a message due later than the retention period until it is sent, then the period after its last attempt", async () => {
      const { app } = await seedApp(t.store);
      // deliverAt 40 days out, with a retention period of 30.
      const { message } = await accept(t.store, app.id, { now: T0, dueAt: T0 + 40 * DAY });
      expect((await pruneAll(t.store, T0 + 39 * DAY)).totals.messages).toBe(0);
      expect(await t.store.findMessage(app.id, message.id)).not.toBeNull();

      const [due] = await claimAll(t.store, T0 + 40 * DAY);
      await t.store.recordAttempts([succeeded(due!, T0 + 40 * DAY)]);
      // An hour after it was sent, its attempt is still there to be read.
      expect((await pruneAll(t.store, T0 + 40 * DAY + HOUR)).totals.messages).toBe(0);
      expect(await t.store.findMessage(app.id, message.id)).not.toBeNull();
      const attempts = await t.store.listAttempts({ appId: app.id, limit: 10 });
      expect(attempts.data.map((a) => a.messageId)).toEqual([message.id]);

      expect((await pruneAll(t.store, T0 + 40 * DAY + RETENTION - 1)).totals.messages).toBe(0);
      expect((await pruneAll(t.store, T0 + 40 * DAY + RETENTION + 1)).totals.messages).toBe(1);
      expect(await t.store.findMessage(app.id, message.id)).toBeNull();
    });

    it("keeps a message given up past the depth cap as long as its tombstone, to be resent", async () => {
      const store = await t.withLimits({ maxOpenDeadLettersPerEndpoint: 1 });
      const { app } = await seedApp(store);
      await deadLetter(store, app.id, { at: T0 });
      const { message } = await accept(store, app.id, { now: T0 });
      const [first] = await claimAll(store, T0);
      await store.recordAttempts([retried(first!, T0, T0 + 29 * DAY)]);
      const [last] = await claimAll(store, T0 + 29 * DAY);
      const changes = await giveUp(store, last!, T0 + 29 * DAY);
      expect(changes[0]!.kind).toBe("overflowed");

      await pruneAll(store, T0 + RETENTION + DAY);
      expect((await store.listDeadLetterOverflow({ limit: 10 })).data).toHaveLength(1);
      expect(await store.findMessage(app.id, message.id)).not.toBeNull();

      const { totals } = await pruneAll(store, T0 + 29 * DAY + RETENTION + 1);
      expect(totals).toMatchObject({ overflow: 1, messages: 1 });
      expect(await store.findMessage(app.id, message.id)).toBeNull();
    });

    it("keeps a message given up unsent past the depth cap as long as its tombstone", async () => {
      const store = await t.withLimits({ maxOpenDeadLettersPerEndpoint: 1 });
      const { app } = await seedApp(store);
      await deadLetter(store, app.id, { at: T0 });
      const { message } = await accept(store, app.id, { now: T0 });
      const [first] = await claimAll(store, T0);
      await store.recordAttempts([retried(first!, T0, T0 + 35 * DAY)]);
      // Its endpoint was disabled while the retry waited: it ends without a request, its last
      // attempt older than the period, and its tombstone says it may still be resent.
      const [last] = await claimAll(store, T0 + 35 * DAY);
      const at = T0 + 35 * DAY;
      const next = {
        kind: "dead",
        failureClass: "permanent",
        reason: "endpoint disabled",
      } as const;
      const { changes } = await store.recordAttempts([
        outcomeFor(last!, { at, attempt: null, next }),
      ]);
      expect(changes[0]!.kind).toBe("overflowed");

      expect((await pruneAll(store, at + HOUR)).totals.messages).toBe(0);
      expect(await store.findMessage(app.id, message.id)).not.toBeNull();

      const { totals } = await pruneAll(store, at + RETENTION + 1);
      expect(totals).toMatchObject({ overflow: 1, messages: 1 });
      expect(await store.findMessage(app.id, message.id)).toBeNull();
    });

    it("walks past old messages still needed once a run, resuming where the last batch ended", async () => {
      const { app } = await seedApp(t.store);
      const { message: held } = await accept(t.store, app.id, { now: T0 });
      const { message: first } = await accept(t.store, app.id, { now: T0 + 1 });
      const { message: second } = await accept(t.store, app.id, { now: T0 + 2 });
      const claimed = await claimAll(t.store, T0 + 2);
      await t.store.recordAttempts(
        claimed.map((d) =>
          d.messageId === held.id ? retried(d, T0 + 2, T0 + HOUR) : succeeded(d, T0 + 2),
        ),
      );
      const now = T0 + RETENTION + DAY;
      // A quarter of a batch of 4: one message a call.
      const prune = (messagesFrom?: number) =>
        t.store.pruneExpired({ now, retentionMs: RETENTION, batchSize: 4, messagesFrom });

      const one = await prune();
      expect(one).toMatchObject({ messages: 1, messagesReached: T0 + 1, done: false });
      expect(await t.store.findMessage(app.id, first.id)).toBeNull();
      // The message walked past is no longer needed (its last attempt older than the period
      // too), but this run is beyond it.
      const [late] = await claimAll(t.store, T0 + HOUR);
      await t.store.recordAttempts([succeeded(late!, T0 + HOUR)]);
      const two = await prune(one.messagesReached!);
      expect(two).toMatchObject({ messages: 1, messagesReached: T0 + 2 });
      expect(await t.store.findMessage(app.id, second.id)).toBeNull();
      expect(await t.store.findMessage(app.id, held.id)).not.toBeNull();
      const three = await prune(two.messagesReached!);
      expect(three).toMatchObject({ messages: 0, messagesReached: now - RETENTION, done: true });

      // The next run starts from the oldest again.
      expect(await prune()).toMatchObject({ messages: 1 });
      expect(await t.store.findMessage(app.id, held.id)).toBeNull();
    });

    it("prunes the old messages behind more still needed than a batch holds, run after run", async () => {
      const { app } = await seedApp(t.store);
      // The oldest messages wait for an endpoint held back for weeks (a retry past the period, as
      // an open circuit would hold them); the ones after them were delivered.
      const held: string[] = [];
      for (let i = 0; i < 3; i++)
        held.push((await accept(t.store, app.id, { now: T0 + i })).message.id);
      await t.store.recordAttempts(
        (await claimAll(t.store, T0 + 2)).map((d) => retried(d, T0 + 2, T0 + 40 * DAY)),
      );
      for (let i = 3; i < 6; i++) await accept(t.store, app.id, { now: T0 + i });
      await t.store.recordAttempts(
        (await claimAll(t.store, T0 + 5)).map((d) => succeeded(d, T0 + 5)),
      );

      // A quarter of a batch of 4: one message a call, fewer than the messages held.
      const run = (now: number) => pruneAll(t.store, now, 4);
      expect((await run(T0 + RETENTION + DAY)).totals.messages).toBe(3);
      const left = await t.store.listMessages(app.id, { limit: 10 });
      expect(left.data.map((m) => m.id).sort()).toEqual([...held].sort());

      for (let i = 6; i < 8; i++) await accept(t.store, app.id, { now: T0 + DAY + i });
      await t.store.recordAttempts(
        (await claimAll(t.store, T0 + DAY + 8)).map((d) => succeeded(d, T0 + DAY + 8)),
      );
      expect((await run(T0 + RETENTION + 2 * DAY)).totals.messages).toBe(2);
      expect((await t.store.listMessages(app.id, { limit: 10 })).data).toHaveLength(3);
    });

    it("prunes an endpoint's circuit transitions older than the retention period, batch by batch", async () => {
      const { endpoints } = await seedApp(t.store);
      const ep = endpoints[0]!.id;
      const circuit = {
        state: "open" as const,
        since: T0,
        reason: "failing",
        nextProbeAt: T0 + HOUR,
        reopenCount: 1,
        openedAt: T0 - HOUR,
      };
      // A receiver that stays down: its circuit opens and probes again and again.
      for (let i = 0; i < 6; i++) {
        const at = T0 + i * HOUR;
        await t.store.saveCircuit(ep, circuit, {
          from: "half-open",
          to: "open",
          at,
          reason: "probe",
        });
      }
      const { totals, calls } = await pruneAll(t.store, T0 + 3 * HOUR + RETENTION, 2);
      expect(totals).toMatchObject({ circuitTransitions: 3 });
      expect(calls).toBeGreaterThanOrEqual(3);
      const left = await t.store.listCircuitTransitions(ep, 10);
      expect(left.map((tr) => tr.at).sort()).toEqual([3, 4, 5].map((i) => T0 + i * HOUR));
      // The circuit itself is the endpoint's state, not history: it stays.
      expect(await t.store.getCircuit(ep)).toEqual(circuit);
    });

    it("prunes tombstones, finished replay jobs with their items, and expired idempotency keys", async () => {
      const store = await t.withLimits({ maxOpenDeadLettersPerEndpoint: 1 });
      const { app } = await seedApp(store);
      await deadLetter(store, app.id, { at: T0 + SECOND });
      await accept(store, app.id, { now: T0 + SECOND });
      const changes = await giveUp(
        store,
        (await claimAll(store, T0 + 2 * SECOND))[0]!,
        T0 + 2 * SECOND,
      );
      expect(changes[0]!.kind).toBe("overflowed");
      const job = await aNewJob(store, {
        id: newId("job"),
        task: "dlq.replay",
        selection: { appId: app.id },
        ratePerSecond: 1,
        canarySize: 0,
        canaryThreshold: 0,
        startAt: T0,
        createdBy: "ops",
        note: null,
        now: T0,
      });
      await store.claimReplayJobs({ now: T0, leaseUntil: T0 + HOUR, limit: 1, runner: "rnr_a" });
      await store.prepareReplayJob(job.id, T0);
      await store.cancelReplayJob({ id: job.id, actor: "ops", now: T0 + SECOND });
      await store.beginIdempotent({
        scope: "s",
        key: "k",
        owner: "o",
        fingerprint: "f",
        now: T0,
        lockMs: SECOND,
        ttlMs: HOUR,
      });

      const { totals } = await pruneAll(store, T0 + RETENTION + DAY);
      expect(totals).toMatchObject({ overflow: 1, replayJobs: 2, idempotencyKeys: 1 });
      expect((await store.listDeadLetterOverflow({ limit: 10 })).data).toEqual([]);
      expect(await store.getReplayJob(job.id)).toBeNull();
    });

    it("prunes API tokens expired longer than the retention period; those that never expire stay, revoked too", async () => {
      const token = (id: string, over: Partial<ApiToken>): ApiToken => ({
        id,
        name: "portal",
        scope: "app",
        appId: "app_x",
        hash: id.padEnd(64, "0"),
        createdAt: T0,
        revokedAt: null,
        expiresAt: null,
        featureFlags: null,
        ...over,
      });
      // Portal links: one ended an hour in, one ends after a day and was logged out of at once.
      const early = await t.store.createApiToken(token("tok_a", { expiresAt: T0 + HOUR }));
      const late = await t.store.createApiToken(
        token("tok_b", { expiresAt: T0 + DAY, revokedAt: T0 }),
      );
      // Tokens that never expire, one of them revoked: deleting it would let a revoked
      // HOOKLINE_ADMIN_TOKEN be registered again at the next start.
      const kept = await t.store.createApiToken(
        token("tok_c", { name: "ci", scope: "admin", appId: null }),
      );
      const revoked = await t.store.createApiToken(
        token("tok_d", { name: "admin", scope: "admin", appId: null, revokedAt: T0 + HOUR }),
      );

      expect((await pruneAll(t.store, T0 + HOUR + RETENTION - 1)).totals.apiTokens).toBe(0);
      expect((await t.store.listApiTokens({ limit: 10 })).data.map((x) => x.id)).toEqual([
        "tok_a",
        "tok_b",
        "tok_c",
        "tok_d",
      ]);

      const { totals, calls } = await pruneAll(t.store, T0 + DAY + RETENTION + 1, 1);
      expect(totals.apiTokens).toBe(2);
      expect(calls).toBeGreaterThanOrEqual(3);
      expect(await t.store.findApiTokenByHash(early.hash)).toBeNull();
      expect(await t.store.findApiTokenByHash(late.hash)).toBeNull();
      expect((await t.store.listApiTokens({ limit: 10 })).data).toEqual([kept, revoked]);
    });
  });
}
