/**
 * A customer portal link (Svix's app-portal-access) carries a token that reaches its own
 * application only, never an admin route, and stops working when it expires.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

describe("portal access links", () => {
  let h: TestHookline;
  const clock = new FakeClock();
  beforeAll(async () => {
    h = await startHookline({ overrides: { clock } });
  });
  afterAll(() => h.stop());

  const asPortal = async (token: string, path: string) =>
    (await fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).status;

  it("gives a /portal/ URL whose fragment holds the app and an app-scoped token", async () => {
    const mine = await h.svix.application.create({ name: "Acme" });
    const theirs = await h.svix.application.create({ name: "Globex" });
    const access = await h.svix.authentication.appPortalAccess(mine.id, { expiry: 3600 });
    const url = new URL(access.url);
    expect(url.pathname).toBe("/portal/");
    expect(url.search).toBe("");
    const fragment = new URLSearchParams(url.hash.slice(1));
    expect(fragment.get("app")).toBe(mine.id);
    expect(fragment.get("token")).toBe(access.token);

    expect(await asPortal(access.token, `/api/v1/app/${mine.id}/endpoint`)).toBe(200);
    expect(await asPortal(access.token, `/api/v1/app/${theirs.id}/endpoint`)).toBe(404);
    expect(await asPortal(access.token, `/api/v1/app`)).toBe(403);
    expect(await asPortal(access.token, `/api/v1/dlq`)).toBe(403);

    // Past its expiry the token is refused, even straight after a successful call.
    clock.advance(3600 * 1_000);
    expect(await asPortal(access.token, `/api/v1/app/${mine.id}/endpoint`)).toBe(401);
  });

  it("refuses what it cannot honour, naming the field, and unknown applications", async () => {
    const app = await h.svix.application.create({ name: "Initech" });
    const bad = await h.api("POST", `/api/v1/auth/app-portal-access/${app.id}`, {
      expiry: 5,
      readOnly: true,
    });
    expect(bad.status).toBe(422);
    const locs = (bad.body as { detail: { loc: string[] }[] }).detail.map((d) => d.loc.join("."));
    expect(locs.sort()).toEqual(["body.expiry", "body.readOnly"]);
    expect((await h.api("POST", "/api/v1/auth/app-portal-access/app_nope", {})).status).toBe(404);
  });

  it("creates the application its `application` names when the path's uid is new", async () => {
    const access = await h.svix.authentication.appPortalAccess("new-customer", {
      application: { name: "New customer", uid: "new-customer" },
    });
    const app = await h.svix.application.get("new-customer");
    expect(app.name).toBe("New customer");
    expect(new URLSearchParams(new URL(access.url).hash.slice(1)).get("app")).toBe(app.id);
    expect(await asPortal(access.token, `/api/v1/app/${app.id}/endpoint`)).toBe(200);
    // An existing application is used as it is.
    await h.svix.authentication.appPortalAccess("new-customer", {
      application: { name: "Renamed?", uid: "new-customer" },
    });
    expect((await h.svix.application.get("new-customer")).name).toBe("New customer");
  });

  it("is for admins only: an application's token cannot mint links", async () => {
    const app = await h.svix.application.create({ name: "Hooli" });
    const access = await h.svix.authentication.appPortalAccess(app.id, {});
    const res = await fetch(`${h.url}/api/v1/auth/app-portal-access/${app.id}`, {
      method: "POST",
      headers: { authorization: `Bearer ${access.token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(403);
  });

  it("expire-all revokes the application's portal links, or those of some sessions", async () => {
    const app = await h.svix.application.create({ name: "Umbrella" });
    const path = `/api/v1/app/${app.id}/endpoint`;
    const a = await h.svix.authentication.appPortalAccess(app.id, { sessionId: "sess-a" });
    const b = await h.svix.authentication.appPortalAccess(app.id, { sessionId: "sess-b" });
    const integration = await h.api<{ token: string }>("POST", "/api/v1/tokens", {
      name: "umbrella-ci",
      scope: "app",
      appId: app.id,
    });
    await h.svix.authentication.expireAll(app.id, { sessionIds: ["sess-a"] });
    expect([await asPortal(a.token, path), await asPortal(b.token, path)]).toEqual([401, 200]);
    await h.svix.authentication.expireAll(app.id, {});
    expect(await asPortal(b.token, path)).toBe(401);
    // The platform's own application token is not a portal link: it keeps working.
    expect(await asPortal(integration.body.token, path)).toBe(200);
    const delayed = await h.api("POST", `/api/v1/auth/app/${app.id}/expire-all`, { expiry: 60 });
    expect(delayed.status).toBe(422);
  });
});
