/**
 * A delivery in flight when hookline is told to stop is let finish (docs/delivery.md, Shutdown);
 * if it ends given up, that is an operational event like any other. hookline stops its
 * observability before the engine, so the event comes after operational webhooks were last
 * waited for: the message announcing it must still be written before the store closes, and sent
 * once hookline runs again, not lost with the store closed under it.
 */
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { anEndpoint, post } from "../support/dlq.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const cleanup = useCleanup();

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  it("announces a delivery given up during the stop, once hookline runs again", async () => {
    const dataDir = tempDir(cleanup, "hookline-op-stop-");
    const env: Record<string, string> = {};
    if (kind === "postgres") {
      const schema = freshSchemaName();
      Object.assign(env, { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema });
      cleanup.push(() => dropSchema(schema));
    }
    const ops = await Receiver.start(() => ({ status: 204 }));
    cleanup.push(() => ops.close());
    const rx = await GatedReceiver.start(500);
    cleanup.push(() => rx.close());

    let h: TestHookline = await startHookline({ dataDir, env });
    const op = await h.svix.operationalWebhookEndpoint.create({ url: ops.url("/ops") });
    const secret = (await h.svix.operationalWebhookEndpoint.getSecret(op.id)).key;
    const ep = await anEndpoint(h, rx.url());
    const msg = await post(h, ep.appId, { invoice: 1 });
    await rx.arrived(1);

    // The announcement reads the message (its eventId) before writing: a database slow to
    // answer that read leaves the engine time to finish stopping first.
    const store = h.hookline.store;
    const findMessage = store.findMessage.bind(store);
    vi.spyOn(store, "findMessage").mockImplementation(async (...args) => {
      const found = await findMessage(...args);
      await new Promise((r) => setTimeout(r, 300));
      return found;
    });
    // The stop reaches the engine (which lets the request finish) after observability stopped.
    const observabilityStop = vi.spyOn(h.hookline.observability, "stop");
    const stopping = h.stop(true);
    await vi.waitFor(() => expect(observabilityStop).toHaveBeenCalled(), { timeout: 20_000 });
    await observabilityStop.mock.results[0]!.value;
    rx.release();
    await stopping;

    h = await startHookline({ dataDir, env });
    cleanup.push(() => h.stop(true));
    await ops.waitFor(1, "/ops");
    const wh = new Webhook(secret);
    const events = ops
      .on("/ops")
      .map((r) => wh.verify(r.body, r.headers) as { type: string; data: { msgId: string } });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "message.attempt.exhausted",
        data: expect.objectContaining({ msgId: msg }),
      }),
    );
  });
});
