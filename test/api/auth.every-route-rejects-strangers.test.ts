/**
 * Every route of the API, taken from the API's own route list (so a new route is covered without
 * touching this file), is tried with no token, a wrong one, a revoked one, another application's
 * token and an application token on admin routes; the admin token must get through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessOf } from "../../src/api/auth.js";
import type { RouteDef } from "../../src/api/route.js";
import { apiRoutes } from "../../src/api/server.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
const ids: Record<string, string> = {};
let tokenA = "";
let tokenB = "";
let revoked = "";
const MISSING_APP = "app_does_not_exist";

const routes: RouteDef[] = apiRoutes({} as never).filter((r) => !r.public);

async function createToken(body: Record<string, unknown>): Promise<{ id: string; token: string }> {
  const res = await api.call("POST", "/api/v1/tokens", body);
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; token: string };
}

/** The route's path with every parameter filled with an id of app A's resources. */
const pathOf = (route: RouteDef, overrides: Record<string, string> = {}): string =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = overrides[name] ?? ids[name];
    if (value === undefined) throw new Error(`no id for {${name}} in ${route.path}`);
    return encodeURIComponent(value);
  });

const as = (route: RouteDef, token: string | null, overrides?: Record<string, string>) =>
  fetch(api.url + pathOf(route, overrides), {
    method: route.method,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });

const label = (route: RouteDef): string => `${route.method} ${route.path}`;

beforeAll(async () => {
  api = await startApi();
  const appA = await api.svix.application.create({ name: "A", uid: "app-a" });
  const appB = await api.svix.application.create({ name: "B" });
  await api.svix.eventType.create({ name: "user.created", description: "A user" });
  const ep = await api.svix.endpoint.create(appA.id, { url: "https://example.com/a" });
  const msg = await api.svix.message.create(appA.id, { eventType: "user.created", payload: {} });
  Object.assign(ids, {
    app_id: appA.id,
    endpoint_id: ep.id,
    msg_id: msg.id,
    attempt_id: "atmpt_unknown",
    event_type_name: "user.created",
    dlq_id: "dlq_unknown",
    job_id: "job_unknown",
    token_id: "tok_unknown",
  });
  tokenA = (await createToken({ name: "a", scope: "app", appId: appA.id })).token;
  tokenB = (await createToken({ name: "b", scope: "app", appId: appB.id })).token;
  const gone = await createToken({ name: "gone", scope: "admin" });
  revoked = gone.token;
  expect((await api.call("DELETE", `/api/v1/tokens/${gone.id}`)).status).toBe(204);
});
afterAll(async () => api.close());

describe("every route refuses strangers", () => {
  it("classifies routes: only /api/v1/app/{app_id}/… is open to app tokens", () => {
    const access = new Map(routes.map((r) => [label(r), accessOf(r)]));
    expect(routes.filter((r) => accessOf(r) === "app").length).toBeGreaterThan(20);
    for (const route of routes) {
      if (accessOf(route) === "app") expect(route.path).toMatch(/^\/api\/v1\/app\/\{app_id\}/);
    }
    for (const adminOnly of [
      "GET /api/v1/app",
      "POST /api/v1/app",
      "PUT /api/v1/app/{app_id}",
      "PATCH /api/v1/app/{app_id}",
      "DELETE /api/v1/app/{app_id}",
      "POST /api/v1/event-type",
      "PUT /api/v1/event-type/{event_type_name}",
      "DELETE /api/v1/event-type/{event_type_name}",
      "GET /api/v1/dlq",
      "POST /api/v1/dlq/replay",
      "POST /api/v1/app/{app_id}/endpoint/{endpoint_id}/recover",
      "POST /api/v1/tokens",
      "GET /api/v1/tokens",
      "DELETE /api/v1/tokens/{token_id}",
    ]) {
      expect(access.get(adminOnly), adminOnly).toBe("admin");
    }
  });

  it("answers 401 without a token, with a wrong one and with a revoked one", async () => {
    for (const route of routes) {
      for (const token of [null, `${tokenA}x`, "hl_admin_not-a-real-token", revoked]) {
        const res = await as(route, token);
        expect(res.status, `${label(route)} with ${token}`).toBe(401);
        expect(await res.json()).toMatchObject({ code: "authentication_failed" });
      }
    }
  });

  it("answers another application's token as if app A did not exist", async () => {
    const missing = await api.call("GET", `/api/v1/app/${MISSING_APP}`);
    expect(missing.status).toBe(404);
    const missingBody = (await missing.json()) as { code: string; detail: string };
    for (const route of routes.filter((r) => accessOf(r) === "app")) {
      const res = await as(route, tokenB);
      expect(res.status, label(route)).toBe(404);
      expect(await res.json(), label(route)).toEqual({
        ...missingBody,
        detail: missingBody.detail.replace(MISSING_APP, ids.app_id!),
      });
      // And a missing application looks exactly the same to an app token.
      const none = await as(route, tokenB, { app_id: MISSING_APP });
      expect(none.status, label(route)).toBe(404);
      expect(await none.json(), label(route)).toEqual(missingBody);
    }
  });

  it("answers 403 to an application's token on admin routes", async () => {
    for (const route of routes.filter((r) => accessOf(r) === "admin")) {
      for (const token of [tokenA, tokenB]) {
        const res = await as(route, token);
        expect(res.status, label(route)).toBe(403);
        expect(await res.json()).toMatchObject({ code: "forbidden" });
      }
    }
  });

  it("lets the admin token through on every route", async () => {
    // Last, since DELETE routes really delete app A's resources.
    for (const route of routes) {
      const res = await as(route, api.token);
      expect([401, 403], label(route)).not.toContain(res.status);
      expect(res.status, label(route)).toBeLessThan(500);
    }
  });
});
