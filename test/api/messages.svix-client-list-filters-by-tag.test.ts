import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

describe("listing messages by tag through the official Svix client", () => {
  it("answers only the messages carrying the tag, newest first", async () => {
    const app = await api.svix.application.create({ name: "Tags" });
    const send = (tags: string[] | null) =>
      api.svix.message.create(app.id, { eventType: "order.placed", payload: {}, tags });
    const first = await send(["vip", "eu"]);
    await send(["eu"]);
    const second = await send(["vip"]);
    await send(null);
    const vip = await api.svix.message.list(app.id, { tag: "vip" });
    expect(vip.data.map((m) => m.id)).toEqual([second.id, first.id]);
    const eu = await api.svix.message.list(app.id, { tag: "eu", limit: 1 });
    expect(eu.data).toHaveLength(1);
    expect(eu.done).toBe(false);
  });
});
