import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RetentionPruner } from "../../src/dlq/retention.js";
import { newId } from "../../src/ids.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { anEndpoint, deadLetters, post } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";
import { anApplication, anEndpoint as anEndpointRow } from "../store/behaviour/fixtures.js";

const DAY = 86_400_000;

describe("retention", () => {
  let h: TestHookline | null = null;
  let rx: Receiver | null = null;
  afterEach(async () => {
    await h?.stop();
    await rx?.close();
    h = null;
    rx = null;
  });

  it("the background job prunes resolved records and old messages; open records keep their payload", async () => {
    const clock = new FakeClock();
    h = await startHookline({
      env: { HOOKLINE_RETENTION_DAYS: "1" },
      overrides: { clock, retention: { firstRunMs: 1_000, intervalMs: 3_600_000 } },
    });
    rx = await Receiver.start(() => ({ status: 200 }));
    const ep = await anEndpoint(h, rx.url("/hooks"), {});
    const delivered = await post(h, ep.appId, { ok: true });
    await h.waitFor(deliveryOf(delivered, "succeeded"));
    rx.behave(() => ({ status: 404 }));
    const [resolved, open] = await deadLetters(h, ep, 2);
    await h.api("POST", `/api/v1/dlq/${resolved!.id}/resolve`, { note: "sent by hand" });

    clock.advance(DAY + 3_600_000);
    const deadline = Date.now() + 10_000;
    while ((await h.api("GET", `/api/v1/dlq/${resolved!.id}`)).status !== 404) {
      if (Date.now() > deadline) throw new Error("the resolved record was not pruned");
      await new Promise((r) => setTimeout(r, 20));
    }
    await h.hookline.retention.runOnce();
    const msg = (id: string) => h!.api("GET", `/api/v1/app/${ep.appId}/msg/${id}`);
    expect((await msg(delivered)).status).toBe(404);
    expect((await msg(resolved!.messageId)).status).toBe(404);

    const kept = await h.api<{ state: string; payload: unknown; attempts: unknown[] }>(
      "GET",
      `/api/v1/dlq/${open!.id}`,
    );
    expect(kept.body).toMatchObject({ state: "open", payload: { n: 1, at: "dead" } });
    expect(kept.body.attempts).toHaveLength(1);
    expect((await msg(open!.messageId)).status).toBe(200);
  });

  it("prunes in small transactions and yields between them, so other work runs meanwhile", async () => {
    const dir = await mkdtemp(join(tmpdir(), "hookline-retention-"));
    const store = new SqliteStore({ path: join(dir, "hookline.db"), synchronous: "normal" });
    try {
      const app = await store.createApplication(anApplication());
      await store.createEndpoint(anEndpointRow(app.id));
      const t0 = Date.UTC(2026, 0, 1);
      for (let i = 0; i < 120; i++) {
        await store.acceptMessage({
          id: newId("msg", t0),
          appId: app.id,
          eventType: "x.y",
          eventId: null,
          channels: null,
          tags: null,
          payload: Buffer.from("{}"),
          now: t0,
          dueAt: t0,
          newDeliveryId: () => newId("dlv", t0),
        });
      }
      const claimed = await store.claimDue({
        now: t0,
        limit: 1000,
        excludeEndpoints: [],
        leaseUntil: t0 + 1,
      });
      await store.recordAttempts(
        claimed.map((d) => ({
          deliveryId: d.id,
          endpointId: d.endpointId,
          messageId: d.messageId,
          appId: d.appId,
          at: t0,
          attempt: null,
          signatureHeaders: {},
          next: { kind: "succeeded" },
          retryAfter: null,
          disableEndpoint: null,
        })),
      );

      // Counts the transactions, and whether work queued meanwhile ran between them.
      let calls = 0;
      let otherWork = 0;
      let interleaved = false;
      const prune = store.pruneExpired.bind(store);
      store.pruneExpired = async (req) => {
        calls++;
        if (otherWork > 0) interleaved = true;
        if (calls === 1) setImmediate(() => otherWork++);
        return prune(req);
      };
      const clock = new FakeClock(t0 + 2 * DAY);
      const pruner = new RetentionPruner(store, clock, { retentionMs: DAY, batchSize: 40 });
      const totals = await pruner.runOnce();
      expect(totals.messages).toBe(120);
      // 40 rows a batch, a quarter of it in messages: 12 batches, and one to find nothing left.
      expect(calls).toBe(13);
      expect(interleaved).toBe(true);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
