/**
 * `eventId` is unique per application. A retry of the same post is answered with the message
 * already there (200) and writes nothing; a post that says something else under the same eventId
 * is refused (409, naming what differs), not dropped behind a 200 that the Svix client, which
 * fills in its own payload, shows as taken.
 */
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

const post = (body: unknown) =>
  api.call("POST", `/api/v1/app/${appId}/msg`, body as Record<string, unknown>);

describe("a repeated eventId", () => {
  it("answers 200 with the first message and writes nothing new", async () => {
    const body = {
      eventType: "order.placed",
      eventId: "order-42",
      channels: ["eu", "vip"],
      payload: { order: 42, lines: [1, 2] },
    };
    const first = await post(body);
    expect(first.status).toBe(202);
    const firstOut = (await first.json()) as { id: string };
    const wakes = api.engine.wakes;

    // The same content, its keys and channels in another order.
    const second = await post({
      channels: ["vip", "eu"],
      payload: { lines: [1, 2], order: 42 },
      eventId: "order-42",
      eventType: "order.placed",
    });
    expect(second.status).toBe(200);
    const secondOut = (await second.json()) as { id: string; payload: unknown };
    expect(secondOut.id).toBe(firstOut.id);
    expect(api.engine.wakes).toBe(wakes);

    const list = await api.svix.message.list(appId);
    expect(list.data.filter((m) => m.eventId === "order-42")).toHaveLength(1);
    expect(await api.store.listDeliveries(firstOut.id)).toHaveLength(1);
  });

  it("refuses a post that says something else (409, naming what differs) and writes nothing", async () => {
    const body = { eventType: "order.placed", eventId: "order-7", payload: { order: 7 } };
    const firstOut = (await (await post(body)).json()) as { id: string };
    const wakes = api.engine.wakes;

    for (const [changed, differs] of [
      [{ payload: { order: 8 } }, "payload differs"],
      [{ eventType: "order.cancelled" }, "eventType differs"],
      [{ eventType: "order.cancelled", tags: ["t"] }, "eventType, tags differ"],
      [{ channels: ["eu"] }, "channels differs"],
    ] as const) {
      const res = await post({ ...body, ...changed });
      expect(res.status, differs).toBe(409);
      const out = (await res.json()) as { code: string; detail: string };
      expect(out.code).toBe("conflict");
      expect(out.detail).toBe(
        `eventId order-7 is message ${firstOut.id}, whose ${differs} from this post's; a message cannot change: post it with another eventId`,
      );
    }
    expect(api.engine.wakes).toBe(wakes);
    const kept = await api.svix.message.get(appId, firstOut.id);
    expect(kept).toMatchObject({ eventType: "order.placed", payload: { order: 7 } });
    expect(await api.store.listDeliveries(firstOut.id)).toHaveLength(1);
  });

  it("gives the same id through the Svix client for both calls, and refuses another payload", async () => {
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
    await expect(
      api.svix.message.create(appId, { eventType: "x", eventId: "e-1", payload: { a: 2 } }),
    ).rejects.toMatchObject({ code: 409 });
  });
});
