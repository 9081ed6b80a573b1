/**
 * An application's token (a customer portal's) on a route that needs an admin token is answered
 * 403, and the OpenAPI document listed only 401 for such routes: a client generated from it had
 * no answer declared for what the server sends. Routes an application's token may call list no
 * 403 (another application's routes answer 404).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "../../src/api/server.js";
import { accessOf } from "../../src/api/auth.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
let doc: { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
beforeAll(async () => {
  h = await startHookline();
  doc = (await (await fetch(`${h.url}/api/v1/openapi.json`)).json()) as typeof doc;
});
afterAll(async () => h?.stop());

describe("the OpenAPI document's 403s", () => {
  it("are listed on the routes that need an admin token, and only on them", () => {
    const routes = apiRoutes({} as never);
    expect(routes.some((r) => accessOf(r) === "admin")).toBe(true);
    for (const route of routes) {
      const responses = doc.paths[route.path]![route.method.toLowerCase()]!.responses;
      const where = `${route.method} ${route.path}`;
      if (accessOf(route) === "admin") expect(responses, where).toHaveProperty("403");
      else expect(responses, where).not.toHaveProperty("403");
    }
  });

  it("are what an application's token gets on such a route", async () => {
    const app = await h.svix.application.create({ name: "Acme" });
    const { token } = await h.svix.authentication.appPortalAccess(app.id, { expiry: 600 });
    const res = await fetch(`${h.url}/api/v1/dlq`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(403);
    const route = apiRoutes({} as never).find(
      (r) => r.method === "GET" && r.path === "/api/v1/dlq",
    );
    expect(accessOf(route!)).toBe("admin");
    expect(doc.paths["/api/v1/dlq"]!.get!.responses).toHaveProperty("403");
  });
});
