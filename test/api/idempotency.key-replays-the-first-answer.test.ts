import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Idempotency" })).id;
  await api.svix.endpoint.create(appId, { url: "https://example.com/hook" });
});
afterAll(async () => api.close());

const post = (path: string, body: unknown, key: string) =>
  api.call("POST", path, body, { "idempotency-key": key });

describe("idempotency keys", () => {
  it("replays the first answer byte for byte and creates one message", async () => {
    const body = { eventType: "charge.created", payload: { amount: 5 } };
    const first = await post(`/api/v1/app/${appId}/msg`, body, "key-1");
    const firstText = await first.text();
    expect(first.status).toBe(202);
    const wakes = api.engine.wakes;

    const second = await post(`/api/v1/app/${appId}/msg`, body, "key-1");
    expect(second.status).toBe(202);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await second.text()).toBe(firstText);
    expect(api.engine.wakes).toBe(wakes);

    const list = await api.svix.message.list(appId);
    expect(list.data.filter((m) => m.eventType === "charge.created")).toHaveLength(1);
  });

  it("refuses the same key with a different body (409 idempotency_mismatch)", async () => {
    await post(`/api/v1/app/${appId}/msg`, { eventType: "a", payload: {} }, "key-2");
    const res = await post(`/api/v1/app/${appId}/msg`, { eventType: "b", payload: {} }, "key-2");
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: "idempotency_mismatch" });
  });

  it("lets the same key be used on another resource", async () => {
    const a = await post("/api/v1/app", { name: "one" }, "key-3");
    const b = await post(
      `/api/v1/app/${appId}/endpoint`,
      { url: "https://example.com/x" },
      "key-3",
    );
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
  });

  it("replays a 4xx answer too, and lets the client's own key make one application", async () => {
    const bad = await post("/api/v1/app", { uid: "no name" }, "key-4");
    expect(bad.status).toBe(422);
    const again = await post("/api/v1/app", { uid: "no name" }, "key-4");
    expect(again.status).toBe(422);
    expect(again.headers.get("idempotent-replayed")).toBe("true");

    const one = await api.svix.application.create({ name: "keyed" }, { idempotencyKey: "key-5" });
    const two = await api.svix.application.create({ name: "keyed" }, { idempotencyKey: "key-5" });
    expect(two.id).toBe(one.id);
  });

  it("keeps no conflict: the same request, once the conflict is gone, runs again", async () => {
    const taken = await api.svix.application.create({ name: "holder", uid: "acme-key-6" });
    const first = await post("/api/v1/app", { name: "acme", uid: "acme-key-6" }, "key-6");
    expect(first.status).toBe(409);
    await api.svix.application.delete(taken.id);
    const again = await post("/api/v1/app", { name: "acme", uid: "acme-key-6" }, "key-6");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
  });

  it("answers 409 idempotency_in_progress while the first request still holds the key", async () => {
    const scope = `admin:POST /api/v1/app/${appId}/msg`;
    const { createHash } = await import("node:crypto");
    const raw = JSON.stringify({ eventType: "slow", payload: {} });
    const fingerprint = createHash("sha256").update("\n").update(raw).digest("hex");
    const now = Date.now();
    // Another request began with this key a moment ago and has not answered yet.
    await api.store.beginIdempotent({
      scope,
      key: "key-6",
      owner: "another request",
      fingerprint,
      now,
      lockMs: 60_000,
      ttlMs: 86_400_000,
    });
    const res = await api.call("POST", `/api/v1/app/${appId}/msg`, raw, {
      "idempotency-key": "key-6",
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: "idempotency_in_progress" });
  });
});
