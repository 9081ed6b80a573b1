/**
 * An application's token (a customer's, or a portal link's) reads its application but cannot
 * change or delete the record itself: a token that could rename the application's uid to one not
 * yet taken would capture the messages later sent for a new customer with that uid.
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

  it("leaves the admin token free to change it", async () => {
    const res = await api.call("PATCH", `/api/v1/app/${appId}`, { name: "A2" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: "A2", uid: "app-a" });
  });
});
