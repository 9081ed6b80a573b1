import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("the official Svix client drives a real delivery end to end", () => {
  let t: TestHookline;
  let rx: Receiver;
  beforeEach(async () => {
    t = await startHookline();
    rx = await Receiver.start();
  });
  afterEach(async () => {
    await t.stop();
    await rx.close();
  });

  it("creates an app and endpoints, posts a message, fans out by filterTypes and channels, and lists the attempts", async () => {
    const app = await t.svix.application.create({ name: "Acme", uid: "acme" });
    const all = await t.svix.endpoint.create(app.id, { url: rx.url("/all"), uid: "all" });
    await t.svix.endpoint.create(app.id, { url: rx.url("/other"), filterTypes: ["user.created"] });
    await t.svix.endpoint.create(app.id, { url: rx.url("/vip"), channels: ["vip"] });
    const msg = await t.svix.message.create("acme", {
      eventType: "invoice.paid",
      eventId: "inv-1",
      payload: { invoice: 1, status: "paid" },
    });
    await t.waitFor(deliveryOf(msg.id, "succeeded", all.id));
    expect(rx.on("/all")).toHaveLength(1);
    expect(rx.on("/other")).toHaveLength(0);
    expect(rx.on("/vip")).toHaveLength(0);

    const req = rx.on("/all")[0]!;
    const { key } = await t.svix.endpoint.getSecret(app.id, all.id);
    const verified = new Webhook(key).verify(req.body.toString(), {
      "webhook-id": req.headers["webhook-id"]!,
      "webhook-timestamp": req.headers["webhook-timestamp"]!,
      "webhook-signature": req.headers["webhook-signature"]!,
    });
    expect(verified).toEqual({ invoice: 1, status: "paid" });

    const attempts = await t.svix.messageAttempt.listByEndpoint(app.id, all.id);
    expect(attempts.data).toHaveLength(1);
    expect(attempts.data[0]).toMatchObject({ msgId: msg.id, responseStatusCode: 200, status: 0 });

    // The same eventId again: no second message, no second delivery.
    const again = await t.svix.message.create("acme", {
      eventType: "invoice.paid",
      eventId: "inv-1",
      payload: { invoice: 1, status: "paid" },
    });
    expect(again.id).toBe(msg.id);

    // A resend to one endpoint is a manual attempt with the same webhook-id.
    await t.svix.messageAttempt.resend(app.id, msg.id, all.id);
    await rx.waitFor(2, "/all");
    expect(rx.on("/all")[1]!.headers["webhook-id"]).toBe(msg.id);
    await t.waitFor(
      (e) => e.type === "delivery" && e.attempt?.trigger === "manual" && e.state === "succeeded",
    );
    const after = await t.api<{ data: { trigger: string; triggerType: number }[] }>(
      "GET",
      `/api/v1/app/acme/attempt/msg/${msg.id}`,
    );
    expect(after.body.data.map((a) => a.trigger).sort()).toEqual(["first", "manual"]);
    expect(after.body.data.find((a) => a.trigger === "manual")!.triggerType).toBe(1);

    // The channel endpoint receives a message on its channel.
    const vip = await t.svix.message.create("acme", {
      eventType: "invoice.paid",
      channels: ["vip"],
      payload: { vip: true },
    });
    await t.waitFor(deliveryOf(vip.id, "succeeded"));
    await rx.waitFor(1, "/vip");
  });

  it("shows live concurrency, circuit and Retry-After counts on the endpoint", async () => {
    rx.behave(() => ({ status: 429, headers: { "retry-after": "3600" } }));
    await t.svix.application.create({ name: "Acme", uid: "acme" });
    const ep = await t.svix.endpoint.create("acme", { url: rx.url("/busy"), uid: "busy" });
    const msg = await t.svix.message.create("acme", { eventType: "x", payload: {} });
    const retry = await t.waitFor(deliveryOf(msg.id, "pending"));
    expect(retry.type === "delivery" && retry.attempt?.status).toBe(429);
    const view = await t.api<Record<string, unknown>>("GET", `/api/v1/app/acme/endpoint/${ep.id}`);
    expect(view.body).toMatchObject({
      retryAfter: { honoured: 1, capped: 0, ignored: 0 },
      circuit: { state: "closed" },
      concurrency: { limit: 100, effectiveLimit: 100, inFlight: 0 },
    });
    const schedule = await t.api<{ preset: string; attempts: number; description: string }>(
      "GET",
      `/api/v1/app/acme/endpoint/busy/retry-schedule`,
    );
    expect(schedule.body.preset).toBe("default");
    expect(schedule.body.attempts).toBe(8);
    expect(schedule.body.description).toMatch(/8 attempts/);
  });
});
