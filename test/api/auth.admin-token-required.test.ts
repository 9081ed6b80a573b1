import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Svix } from "svix";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

describe("the admin token", () => {
  it("is required on every /api/v1 route (401 with a JSON body)", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/app"],
      ["POST", "/api/v1/app"],
      ["GET", "/api/v1/event-type"],
      ["GET", "/api/v1/app/whatever/msg"],
      ["GET", "/api/v1/no-such-route"],
    ] as const) {
      const res = await fetch(`${api.url}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(await res.json()).toMatchObject({ code: "authentication_failed" });
    }
  });

  it("must match: a wrong token or another scheme is refused", async () => {
    for (const authorization of [
      `Bearer ${api.token}x`,
      "Bearer ",
      `Basic ${api.token}`,
      api.token,
    ]) {
      const res = await fetch(`${api.url}/api/v1/app`, { headers: { authorization } });
      expect(res.status, authorization).toBe(401);
    }
    await expect(
      new Svix("wrong-token", { serverUrl: api.url }).application.list(),
    ).rejects.toMatchObject({ code: 401 });
  });

  it("is not needed for health and the OpenAPI document", async () => {
    expect((await fetch(`${api.url}/api/v1/health`)).status).toBe(204);
    expect((await fetch(`${api.url}/api/v1/openapi.json`)).status).toBe(200);
    await expect(api.svix.health.get()).resolves.toBeUndefined();
  });

  it("is accepted with any letter case of 'Bearer'", async () => {
    const res = await fetch(`${api.url}/api/v1/app`, {
      headers: { authorization: `bearer ${api.token}` },
    });
    expect(res.status).toBe(200);
  });
});
