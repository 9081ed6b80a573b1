/**
 * A keyed POST answered 404 (its application, endpoint or message not there yet) wrote nothing,
 * and what it names may appear: a client's outbox that posts before its customer's application is
 * made, and retries with the same key once it is, must get its message sent, not "application
 * not found" replayed for the key's 24 h about an application that exists. So a 404 is not kept,
 * as a conflict (409) is not: the repeat runs again. Any other 4xx is still replayed.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

const post = (path: string, body: unknown, key: string) =>
  api.call("POST", path, body, { "idempotency-key": key });

it("runs a message post again once its application exists", async () => {
  const body = { eventType: "invoice.paid", payload: { invoice: 7 } };
  const early = await post("/api/v1/app/late-customer/msg", body, "outbox-7");
  expect(early.status).toBe(404);

  await api.svix.application.create({ name: "Late", uid: "late-customer" });
  const again = await post("/api/v1/app/late-customer/msg", body, "outbox-7");
  expect(again.status).toBe(202);
  expect(again.headers.get("idempotent-replayed")).toBeNull();
  const made = (await again.json()) as { id: string };

  // From then on the key answers what it made, as any kept answer.
  const third = await post("/api/v1/app/late-customer/msg", body, "outbox-7");
  expect(third.status).toBe(202);
  expect(third.headers.get("idempotent-replayed")).toBe("true");
  expect(((await third.json()) as { id: string }).id).toBe(made.id);
  expect((await api.svix.message.list("late-customer")).data).toHaveLength(1);
});

it("runs a resend again once its endpoint exists", async () => {
  await api.svix.application.create({ name: "Shop", uid: "shop" });
  const msg = await api.svix.message.create("shop", { eventType: "a", payload: {} });
  const path = `/api/v1/app/shop/msg/${msg.id}/endpoint/orders/resend`;
  expect((await post(path, undefined, "resend-1")).status).toBe(404);

  await api.svix.endpoint.create("shop", { url: "https://example.com/orders", uid: "orders" });
  const again = await post(path, undefined, "resend-1");
  expect(again.status).toBe(202);
  expect(again.headers.get("idempotent-replayed")).toBeNull();
});
