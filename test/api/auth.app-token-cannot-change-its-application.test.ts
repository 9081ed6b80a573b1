/**
 * An application's token (a customer's, or a portal link's) reads its application but cannot
 * change or delete the record itself: a token that could rename the application's uid to one not
 * yet taken would capture the messages later sent for a new customer with that uid. Its delivery
 * policy has a route of its own under the application's path, which the token may use, as it may
 * set its endpoints' policies (which take precedence over the application's).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
let appToken = "";
let portalToken = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "A", uid: "app-a" })).id;
  const made = await api.call("POST", "/api/v1/tokens", { name: "a", scope: "app", appId });
  appToken = ((await made.json()) as { token: string }).token;
  const portal = await api.call("POST", `/api/v1/auth/app-portal-access/${appId}`, {});
  expect(portal.status).toBeLessThan(300);
  portalToken = ((await portal.json()) as { token: string }).token;
});
afterAll(async () => api.close());

describe("an application's token on its own application record", () => {
  it("is refused 403 on PUT, PATCH and DELETE, and the application is unchanged", async () => {
    const before = await (await api.call("GET", `/api/v1/app/${appId}`)).json();
    for (const token of [appToken, portalToken]) {
      const as = { authorization: `Bearer ${token}` };
      for (const [method, body] of [
        ["PATCH", { uid: "next-customer" }],
        ["PUT", { name: "A", uid: "next-customer" }],
        ["DELETE", undefined],
      ] as const) {
        for (const path of [`/api/v1/app/${appId}`, "/api/v1/app/app-a"]) {
          const res = await api.call(method, path, body, as);
          expect(res.status, `${method} ${path}`).toBe(403);
          expect(await res.json()).toMatchObject({ code: "forbidden" });
        }
      }
    }
    expect(await (await api.call("GET", `/api/v1/app/${appId}`)).json()).toEqual(before);
    expect((await api.call("GET", "/api/v1/app/next-customer")).status).toBe(404);
  });

  it("still reads it (GET answers 200)", async () => {
    for (const token of [appToken, portalToken]) {
      const res = await api.call("GET", `/api/v1/app/${appId}`, undefined, {
        authorization: `Bearer ${token}`,
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: appId, uid: "app-a" });
    }
  });

  it("may set its delivery policy, which its endpoints' own policies override anyway", async () => {
    for (const token of [appToken, portalToken]) {
      const as = { authorization: `Bearer ${token}` };
      const path = `/api/v1/app/${appId}/delivery-policy`;
      const put = await api.call("PUT", path, { timeoutMs: 2000 }, as);
      expect(put.status).toBe(200);
      expect(await (await api.call("GET", path, undefined, as)).json()).toEqual({
        timeoutMs: 2000,
      });
      // The record's own field stays the admins': the same change through PATCH is refused.
      const patch = { deliveryPolicy: { timeoutMs: 3000 } };
      expect((await api.call("PATCH", `/api/v1/app/${appId}`, patch, as)).status).toBe(403);
      expect((await api.call("PUT", path, {}, as)).status).toBe(200);
    }
  });

  it("leaves the admin token free to change it", async () => {
    const res = await api.call("PATCH", `/api/v1/app/${appId}`, { name: "A2" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: "A2", uid: "app-a" });
  });
});
