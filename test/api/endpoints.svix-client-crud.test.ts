import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecret } from "../../src/signing/secret.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Endpoints", uid: "ep-app" })).id;
});
afterAll(async () => api.close());

describe("endpoints through the official Svix client", () => {
  it("creates an endpoint with defaults and a generated whsec_ secret", async () => {
    const ep = await api.svix.endpoint.create("ep-app", { url: "http://127.0.0.1:9/hook" });
    expect(ep.id).toMatch(/^ep_/);
    expect(ep).toMatchObject({ url: "http://127.0.0.1:9/hook", version: 1, description: "" });
    expect(ep.disabled).toBe(false);
    const { key } = await api.svix.endpoint.getSecret(appId, ep.id);
    expect(key).toMatch(/^whsec_/);
  });

  it("gets, lists, updates, patches and deletes an endpoint by id and by uid", async () => {
    const secret = generateSecret();
    const ep = await api.svix.endpoint.create(appId, {
      url: "https://example.com/a",
      uid: "ep-a",
      description: "first",
      filterTypes: ["invoice.paid"],
      channels: ["eu"],
      metadata: { team: "billing" },
      secret,
    });
    expect((await api.svix.endpoint.get(appId, "ep-a")).id).toBe(ep.id);
    expect((await api.svix.endpoint.getSecret(appId, "ep-a")).key).toBe(secret);

    const list = await api.svix.endpoint.list(appId, { limit: 250 });
    expect(list.data.map((e) => e.id)).toContain(ep.id);
    expect(list.done).toBe(true);

    const updated = await api.svix.endpoint.update(appId, ep.id, {
      url: "https://example.com/b",
      uid: "ep-a",
      version: 2,
    });
    expect(updated).toMatchObject({ url: "https://example.com/b", version: 2, description: "" });
    expect(updated.filterTypes ?? null).toBeNull();
    // The secret has its own calls; an update keeps it.
    expect((await api.svix.endpoint.getSecret(appId, ep.id)).key).toBe(secret);

    const patched = await api.svix.endpoint.patch(appId, "ep-a", {
      description: "patched",
      disabled: true,
      channels: ["us"],
    });
    expect(patched).toMatchObject({
      url: "https://example.com/b",
      description: "patched",
      disabled: true,
      channels: ["us"],
      version: 2,
    });
    expect(api.engine.invalidatedEndpoints).toContain(ep.id);

    await api.svix.endpoint.delete(appId, "ep-a");
    await expect(api.svix.endpoint.get(appId, ep.id)).rejects.toMatchObject({ code: 404 });
  });

  it("rotates the secret, keeping the old one in previous until the grace period ends", async () => {
    const ep = await api.svix.endpoint.create(appId, { url: "https://example.com/rotate" });
    const before = (await api.svix.endpoint.getSecret(appId, ep.id)).key;
    const started = Date.now();
    await api.svix.endpoint.rotateSecret(appId, ep.id, {});
    const after = (await api.svix.endpoint.getSecret(appId, ep.id)).key;
    expect(after).not.toBe(before);
    expect(after).toMatch(/^whsec_/);

    const stored = await api.store.getEndpoint(ep.id);
    expect(stored?.secrets.current).toBe(after);
    expect(stored?.secrets.previous).toHaveLength(1);
    expect(stored?.secrets.previous[0]?.secret).toBe(before);
    expect(stored?.secrets.previous[0]?.expiresAt).toBeGreaterThanOrEqual(started + 86_400_000);

    const chosen = generateSecret();
    await api.svix.endpoint.rotateSecret(appId, ep.id, { key: chosen, gracePeriodSeconds: 60 });
    const again = await api.store.getEndpoint(ep.id);
    expect(again?.secrets.current).toBe(chosen);
    expect(again?.secrets.previous.map((p) => p.secret)).toEqual([after, before]);
    expect(again?.secrets.previous[0]!.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it("reads, replaces and patches custom headers", async () => {
    const ep = await api.svix.endpoint.create(appId, {
      url: "https://example.com/headers",
      headers: { "X-Tenant": "acme" },
    });
    expect(await api.svix.endpoint.getHeaders(appId, ep.id)).toEqual({
      headers: { "X-Tenant": "acme" },
      sensitive: [],
    });
    await api.svix.endpoint.updateHeaders(appId, ep.id, {
      headers: { "X-One": "1", "X-Two": "2" },
    });
    expect((await api.svix.endpoint.getHeaders(appId, ep.id)).headers).toEqual({
      "X-One": "1",
      "X-Two": "2",
    });
    await api.svix.endpoint.patchHeaders(appId, ep.id, {
      headers: { "x-one": "uno", "X-Three": "3" },
      deleteHeaders: ["X-Two"],
    });
    expect((await api.svix.endpoint.getHeaders(appId, ep.id)).headers).toEqual({
      "x-one": "uno",
      "X-Three": "3",
    });
  });

  it("refuses a second endpoint with the same uid in one application (409)", async () => {
    await api.svix.endpoint.create(appId, { url: "https://example.com/u1", uid: "same" });
    await expect(
      api.svix.endpoint.create(appId, { url: "https://example.com/u2", uid: "same" }),
    ).rejects.toMatchObject({ code: 409 });
  });
});
