import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Messages", uid: "msg-app" })).id;
  await api.svix.endpoint.create(appId, { url: "https://example.com/all" });
  await api.svix.endpoint.create(appId, {
    url: "https://example.com/only-paid",
    filterTypes: ["invoice.paid"],
  });
});
afterAll(async () => api.close());

describe("messages through the official Svix client", () => {
  it("accepts a message with 202, stores the payload bytes and fans out to matching endpoints", async () => {
    const wakes = api.engine.wakes;
    const waits = api.engine.callerWaits.length;
    const payload = { id: "inv_1", amount: 1250, nested: { ok: true, list: [1, "two"] } };
    const res = await api.call("POST", `/api/v1/app/${appId}/msg`, {
      eventType: "invoice.created",
      payload,
      channels: ["eu"],
      tags: ["t1"],
    });
    expect(res.status).toBe(202);
    const out = (await res.json()) as Record<string, unknown>;
    expect(out).toMatchObject({
      eventType: "invoice.created",
      payload,
      channels: ["eu"],
      tags: ["t1"],
    });
    expect(out.id).toMatch(/^msg_/);
    expect(new Date(out.timestamp as string).toISOString()).toBe(out.timestamp);
    expect(api.engine.wakes).toBe(wakes + 1);
    // The caller's wait for the commit is reported, so delivery can make way when it grows.
    expect(api.engine.callerWaits.length).toBe(waits + 1);
    expect(api.engine.callerWaits.at(-1)).toBeGreaterThanOrEqual(0);

    const stored = await api.store.findMessage(appId, out.id as string);
    expect(stored?.payload.toString("utf8")).toBe(JSON.stringify(payload));
    // Only the endpoint without a filter gets an invoice.created.
    expect(await api.store.listDeliveries(out.id as string)).toHaveLength(1);
  });

  it("creates through the client and reads back by id and by eventId, payload included", async () => {
    const msg = await api.svix.message.create("msg-app", {
      eventType: "invoice.paid",
      eventId: "evt-client-1",
      payload: { n: 1 },
    });
    expect(msg.payload).toEqual({ n: 1 });
    const byId = await api.svix.message.get(appId, msg.id);
    expect(byId).toMatchObject({ id: msg.id, eventId: "evt-client-1", payload: { n: 1 } });
    const byEventId = await api.svix.message.get("msg-app", "evt-client-1");
    expect(byEventId.id).toBe(msg.id);
    const noContent = await api.svix.message.get(appId, msg.id, { withContent: false });
    expect(noContent.payload).toEqual({});
    expect(await api.store.listDeliveries(msg.id)).toHaveLength(2);
  });

  it("lists messages newest first, filtered by event type and channel, page by page", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const m = await api.svix.message.create(appId, {
        eventType: i % 2 ? "list.odd" : "list.even",
        payload: { i },
        channels: [`ch-${i % 2}`],
      });
      ids.push(m.id);
    }
    const evens = await api.svix.message.list(appId, { eventTypes: ["list.even"] });
    expect(evens.data.map((m) => m.id)).toEqual([ids[4], ids[2], ids[0]]);
    expect(evens.data[0]?.payload).toEqual({ i: 4 });

    const both = await api.svix.message.list(appId, {
      eventTypes: ["list.even", "list.odd"],
      limit: 2,
    });
    expect(both.data.map((m) => m.id)).toEqual([ids[4], ids[3]]);
    expect(both.done).toBe(false);
    const next = await api.svix.message.list(appId, {
      eventTypes: ["list.even", "list.odd"],
      limit: 2,
      iterator: both.iterator,
    });
    expect(next.data.map((m) => m.id)).toEqual([ids[2], ids[1]]);

    const odd = await api.svix.message.list(appId, { channel: "ch-1", withContent: false });
    expect(odd.data.map((m) => m.id)).toEqual([ids[3], ids[1]]);
    expect(odd.data[0]?.payload).toEqual({});
  });

  it("creates the application named by a new uid when the message carries one", async () => {
    const msg = await api.svix.message.create("brand-new-app", {
      eventType: "hello",
      payload: {},
      application: { name: "Brand new", uid: "brand-new-app" },
    });
    const app = await api.svix.application.get("brand-new-app");
    expect(app.name).toBe("Brand new");
    expect((await api.svix.message.get("brand-new-app", msg.id)).eventType).toBe("hello");
    await expect(
      api.svix.message.create("missing-app", { eventType: "x", payload: {} }),
    ).rejects.toMatchObject({ code: 404 });
  });

  it("answers payloads with the stored bytes, unicode and all", async () => {
    const payload = { text: "héllo \u2028 \ud83d\ude00", big: 12345678901234567890, neg: -0.5 };
    const res = await api.call("POST", `/api/v1/app/${appId}/msg`, { eventType: "bytes", payload });
    const text = await res.text();
    const stored = JSON.stringify(JSON.parse(text).payload);
    expect(text).toContain(`"payload":${stored}`);
    const got = await (
      await api.call("GET", `/api/v1/app/${appId}/msg/${JSON.parse(text).id}`)
    ).text();
    expect(got).toContain(`"payload":${JSON.stringify(payload)}`);
  });
});
