/**
 * A message posted while the engine would send its deliveries at once is handed to the engine as
 * it is written: stored claimed, no claim, no second read of the payload. These tests hold the
 * hand-off to the rules a claim follows: nothing is sent out of turn, a crash between commit and
 * send loses nothing, and sealed payloads still reach the receiver as posted.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ClaimedDelivery, Store } from "../../src/store/port.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { anEndpoint, post } from "../support/dlq.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

/** Counts the engine's claims from now on. */
function countClaims(store: Store): { claims: number } {
  const counter = { claims: 0 };
  const claimDue = store.claimDue.bind(store);
  store.claimDue = (req: Parameters<Store["claimDue"]>[0]): Promise<ClaimedDelivery[]> => {
    counter.claims++;
    return claimDue(req);
  };
  return counter;
}

describe("deliveries taken as they are accepted", () => {
  let h: TestHookline | undefined;
  let rx: { close(): Promise<void> } | undefined;
  afterEach(async () => {
    await h?.stop();
    await rx?.close();
    h = rx = undefined;
  });

  it("are sent without a claim while the engine has caught up", async () => {
    h = await startHookline();
    const receiver = await Receiver.start();
    rx = receiver;
    const ep = await anEndpoint(h, receiver.url("/hook"));
    // The first message meets an endpoint the engine does not know yet: claimed as usual.
    const first = await post(h, ep.appId, { n: 0 });
    await h.waitFor(deliveryOf(first, "succeeded"));
    const counter = countClaims(h.hookline.store);
    for (let n = 1; n <= 20; n++) {
      const id = await post(h, ep.appId, { n });
      await h.waitFor(deliveryOf(id, "succeeded"));
    }
    expect(receiver.requests.map((r) => JSON.parse(r.body.toString()).n)).toEqual(
      Array.from({ length: 21 }, (_, n) => n),
    );
    expect(counter.claims).toBe(0);
  });

  it("are not taken out of turn: behind a full endpoint, new messages wait and go in order", async () => {
    h = await startHookline();
    const gate = await GatedReceiver.start();
    rx = gate;
    const ep = await anEndpoint(h, gate.url(), {
      retry: { preset: "manual" },
      concurrencyLimit: 1,
    });
    const ids = [await post(h, ep.appId, { n: 0 })];
    await gate.arrived(1);
    // The endpoint's one slot is taken: these are written due and wait their turn.
    for (let n = 1; n < 6; n++) ids.push(await post(h, ep.appId, { n }));
    gate.release();
    for (const id of ids) await h.waitFor(deliveryOf(id, "succeeded"));
    // webhook-id is the message's id.
    expect(gate.ids).toEqual(ids);
  });

  it("are sent after a restart when the process died between the commit and the send", async () => {
    h = await startHookline();
    const receiver = await Receiver.start();
    rx = receiver;
    const ep = await anEndpoint(h, receiver.url("/hook"));
    const { dataDir } = h;
    await h.stop(true);
    // Taken at accept, never handed over: what a crash right after the commit leaves behind.
    const store = new SqliteStore({ path: join(dataDir, "hookline.db"), synchronous: "normal" });
    const { message } = await store.acceptMessage({
      id: "msg_crash",
      appId: ep.appId,
      eventType: "invoice.failed",
      eventId: null,
      channels: null,
      tags: null,
      payload: Buffer.from('{"n":"crash"}'),
      now: Date.now(),
      dueAt: Date.now(),
      newDeliveryId: () => "dlv_crash",
      intake: { room: () => 1, leaseUntil: () => Date.now() + 300_000, handOver: () => {} },
    });
    expect((await store.getDelivery("dlv_crash"))?.state).toBe("inflight");
    await store.close();

    h = await startHookline({ dataDir });
    await h.waitFor(deliveryOf(message.id, "succeeded"));
    expect(receiver.requests.map((r) => r.body.toString())).toEqual(['{"n":"crash"}']);
  });

  it("carry the posted bytes when payloads are sealed at rest", async () => {
    h = await startHookline({
      env: { HOOKLINE_ENCRYPTION_KEY: randomBytes(32).toString("base64") },
    });
    const receiver = await Receiver.start();
    rx = receiver;
    const ep = await anEndpoint(h, receiver.url("/hook"));
    const first = await post(h, ep.appId, { n: "claimed" });
    await h.waitFor(deliveryOf(first, "succeeded"));
    const counter = countClaims(h.hookline.store);
    const second = await post(h, ep.appId, { n: "taken" });
    await h.waitFor(deliveryOf(second, "succeeded"));
    expect(counter.claims).toBe(0);
    expect(receiver.requests.map((r) => r.body.toString())).toEqual([
      '{"n":"claimed"}',
      '{"n":"taken"}',
    ]);
  });
});
