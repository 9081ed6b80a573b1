import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

describe("hookline on PostgreSQL (DATABASE_URL) delivers end to end", () => {
  let schema: string;
  let t: TestHookline;
  let rx: Receiver;
  beforeEach(async () => {
    schema = freshSchemaName();
    t = await startHookline({
      env: { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema },
    });
    rx = await Receiver.start();
  });
  afterEach(async () => {
    await t.stop();
    await rx.close();
    await dropSchema(schema);
  });

  it("creates an app and an endpoint with the Svix client, delivers a message, lists its attempt", async () => {
    expect(t.hookline.store.kind).toBe("postgres");
    const app = await t.svix.application.create({ name: "Acme", uid: "acme" });
    const ep = await t.svix.endpoint.create(app.id, { url: rx.url("/hooks"), uid: "hooks" });
    const msg = await t.svix.message.create("acme", {
      eventType: "invoice.paid",
      eventId: "inv-1",
      payload: { invoice: 1, status: "paid", note: "héllo ✓" },
    });

    await t.waitFor(deliveryOf(msg.id, "succeeded", ep.id));
    const [req] = rx.on("/hooks");
    expect(req).toBeDefined();
    const { key } = await t.svix.endpoint.getSecret(app.id, ep.id);
    const verified = new Webhook(key).verify(req!.body.toString(), {
      "webhook-id": req!.headers["webhook-id"]!,
      "webhook-timestamp": req!.headers["webhook-timestamp"]!,
      "webhook-signature": req!.headers["webhook-signature"]!,
    });
    expect(verified).toEqual({ invoice: 1, status: "paid", note: "héllo ✓" });

    const attempts = await t.svix.messageAttempt.listByEndpoint(app.id, ep.id);
    expect(attempts.data).toHaveLength(1);
    expect(attempts.data[0]).toMatchObject({ msgId: msg.id, responseStatusCode: 200, status: 0 });
    const byMessage = await t.svix.messageAttempt.listByMsg(app.id, msg.id);
    expect(byMessage.data.map((a) => a.id)).toEqual(attempts.data.map((a) => a.id));

    // The same eventId again is the same message, in PostgreSQL as in SQLite; with another
    // payload it is refused.
    const again = await t.svix.message.create("acme", {
      eventType: "invoice.paid",
      eventId: "inv-1",
      payload: { invoice: 1, status: "paid", note: "héllo ✓" },
    });
    expect(again.id).toBe(msg.id);
    await expect(
      t.svix.message.create("acme", {
        eventType: "invoice.paid",
        eventId: "inv-1",
        payload: { invoice: 1, status: "paid" },
      }),
    ).rejects.toMatchObject({ code: 409 });
    expect((await t.svix.message.list(app.id)).data.map((m) => m.id)).toEqual([msg.id]);
  });
});
