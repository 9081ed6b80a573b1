import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Dedup" })).id;
  await api.svix.endpoint.create(appId, { url: "https://example.com/hook" });
});
afterAll(async () => api.close());

describe("a repeated eventId", () => {
  it("answers 200 with the first message and writes nothing new", async () => {
    const body = { eventType: "order.placed", eventId: "order-42", payload: { order: 42 } };
    const first = await api.call("POST", `/api/v1/app/${appId}/msg`, body);
    expect(first.status).toBe(202);
    const firstOut = (await first.json()) as { id: string };
    const wakes = api.engine.wakes;

    const second = await api.call("POST", `/api/v1/app/${appId}/msg`, {
      ...body,
      payload: { order: 43 },
    });
    expect(second.status).toBe(200);
    const secondOut = (await second.json()) as { id: string; payload: unknown };
    expect(secondOut.id).toBe(firstOut.id);
    expect(secondOut.payload).toEqual({ order: 42 });
    expect(api.engine.wakes).toBe(wakes);

    const list = await api.svix.message.list(appId);
    expect(list.data.filter((m) => m.eventId === "order-42")).toHaveLength(1);
    expect(await api.store.listDeliveries(firstOut.id)).toHaveLength(1);
  });

  it("gives the same id through the Svix client for both calls", async () => {
    const a = await api.svix.message.create(appId, {
      eventType: "x",
      eventId: "e-1",
      payload: { a: 1 },
    });
    const b = await api.svix.message.create(appId, {
      eventType: "x",
      eventId: "e-1",
      payload: { a: 1 },
    });
    expect(b.id).toBe(a.id);
  });
});
