/** Tokens through the API: an app token works on its own application; the token API itself. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenDigest } from "../../src/api/auth.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "A", uid: "app-a" })).id;
  await api.svix.eventType.create({ name: "user.created", description: "A user" });
});
afterAll(async () => api.close());

const asToken = (token: string) => (method: string, path: string, body?: unknown) =>
  api.call(method, path, body, { authorization: `Bearer ${token}` });

describe("an application's token", () => {
  it("creates endpoints, sends messages and lists attempts of its application", async () => {
    const created = await api.call("POST", "/api/v1/tokens", {
      name: "acme backend",
      scope: "app",
      appId: "app-a",
    });
    expect(created.status).toBe(201);
    const { token, appId: boundTo } = (await created.json()) as { token: string; appId: string };
    expect(token).toMatch(/^hl_app_[A-Za-z0-9_-]{32}$/);
    expect(boundTo).toBe(appId);
    const call = asToken(token);

    const ep = await call("POST", `/api/v1/app/${appId}/endpoint`, {
      url: "https://example.com/a",
    });
    expect(ep.status).toBe(201);
    const endpointId = ((await ep.json()) as { id: string }).id;
    // By uid as well as by id.
    const msg = await call("POST", "/api/v1/app/app-a/msg", {
      eventType: "user.created",
      payload: { n: 1 },
    });
    expect(msg.status).toBe(202);
    const attempts = await call("GET", `/api/v1/app/${appId}/attempt/endpoint/${endpointId}`);
    expect(attempts.status).toBe(200);
    expect(await attempts.json()).toMatchObject({ data: [] });
    // Reading event types is open to every token; writing them is not.
    expect((await call("GET", "/api/v1/event-type")).status).toBe(200);
    expect((await call("POST", "/api/v1/event-type", { name: "x", description: "x" })).status).toBe(
      403,
    );
  });
});

describe("the token API", () => {
  it("shows an admin token once, lists tokens without secrets, and revokes them", async () => {
    const res = await api.call("POST", "/api/v1/tokens", { name: "ops", scope: "admin" });
    expect(res.status).toBe(201);
    const made = (await res.json()) as { id: string; token: string };
    expect(made.id).toMatch(/^tok_/);
    expect(made.token).toMatch(/^hl_admin_/);
    const call = asToken(made.token);
    expect((await call("GET", "/api/v1/app")).status).toBe(200);

    const listed = await (await api.call("GET", "/api/v1/tokens")).text();
    expect(listed).not.toContain(made.token);
    expect(listed).not.toContain(tokenDigest(made.token).toString("hex"));
    expect(listed).not.toContain(api.token);
    const names = (JSON.parse(listed) as { data: { name: string }[] }).data.map((t) => t.name);
    // The configured admin token was registered at start as "admin".
    expect(names).toEqual(expect.arrayContaining(["admin", "ops"]));

    expect((await api.call("DELETE", `/api/v1/tokens/${made.id}`)).status).toBe(204);
    expect((await call("GET", "/api/v1/app")).status).toBe(401);
    expect((await api.call("DELETE", "/api/v1/tokens/tok_missing")).status).toBe(404);
  });

  it("refuses an app token without an existing application", async () => {
    for (const body of [
      { name: "x", scope: "app" },
      { name: "x", scope: "app", appId: "nobody" },
      { name: "x", scope: "admin", appId },
      { name: "", scope: "admin" },
    ]) {
      const res = await api.call("POST", "/api/v1/tokens", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
  });
});
