/**
 * Custom `svix-…` headers are refused when saved, but an endpoint may still hold some saved before
 * they were: they are not sent, since the svix library verifies `svix-signature` before the
 * `webhook-signature` hookline signs with, and a request carrying another would fail its check.
 * The endpoint's other custom headers still go out.
 */
import { Webhook } from "svix";
import { afterAll, beforeAll, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let t: TestHookline;
let rx: Receiver;
beforeAll(async () => {
  t = await startHookline();
  rx = await Receiver.start();
});
afterAll(async () => {
  await t.stop();
  await rx.close();
});

it("an endpoint's stored svix-* headers are left out of its requests", async () => {
  const app = await t.svix.application.create({ name: "legacy headers" });
  const ep = await t.svix.endpoint.create(app.id, {
    url: rx.url("/hook"),
    headers: { "X-Tenant": "acme" },
  });
  const stored = (await t.hookline.store.getEndpoint(ep.id))!;
  const headers = { ...stored.headers, "Svix-Signature": "v1,stale", "svix-id": "msg_other" };
  expect(await t.hookline.store.updateEndpoint({ ...stored, headers })).toBe(true);
  t.hookline.engine.invalidateEndpoint(ep.id);

  const msg = await t.svix.message.create(app.id, { eventType: "order.paid", payload: { n: 1 } });
  await t.waitFor(deliveryOf(msg.id, "succeeded", ep.id));
  const req = rx.on("/hook")[0]!;
  expect(req.headers["x-tenant"]).toBe("acme");
  expect(req.headers["svix-signature"]).toBeUndefined();
  expect(req.headers["svix-id"]).toBeUndefined();
  const { key } = await t.svix.endpoint.getSecret(app.id, ep.id);
  const asReceived = Object.fromEntries(
    Object.entries(req.headers).map(([k, v]) => [k, String(v)]),
  );
  expect(new Webhook(key).verify(req.body.toString(), asReceived)).toEqual({ n: 1 });
});
