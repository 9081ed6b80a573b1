import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Later" })).id;
  await api.svix.endpoint.create(appId, { url: "https://example.com/hook" });
});
afterAll(async () => api.close());

describe("MessageOut.deliverAt through the official Svix client", () => {
  it("answers the delivery time a message asked for on create, get and list", async () => {
    const deliverAt = new Date(Date.now() + 3_600_000);
    deliverAt.setMilliseconds(0);
    const created = await api.svix.message.create(appId, {
      eventType: "invoice.due",
      payload: { n: 1 },
      deliverAt,
    });
    expect(created.deliverAt).toEqual(deliverAt);
    expect((await api.svix.message.get(appId, created.id)).deliverAt).toEqual(deliverAt);
    const listed = await api.svix.message.list(appId, { eventTypes: ["invoice.due"] });
    expect(listed.data.map((m) => m.deliverAt)).toEqual([deliverAt]);
    // The deliveries wait for it too.
    const [delivery] = await api.store.listDeliveries(created.id);
    expect(delivery?.nextAttemptAt).toBe(deliverAt.getTime());
  });

  it("answers deliverAt null, not missing, for a message sent at once", async () => {
    const res = await api.call("POST", `/api/v1/app/${appId}/msg`, {
      eventType: "invoice.now",
      payload: {},
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toHaveProperty("deliverAt", null);
    const got = await api.call("GET", `/api/v1/app/${appId}/msg/${body.id as string}`);
    expect(await got.json()).toHaveProperty("deliverAt", null);
  });
});
