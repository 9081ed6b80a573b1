/**
 * What a Svix client user does with portal access: make a link for an application (one read and
 * sent along, one that does not exist yet, none at all), use its token as the portal does (read
 * and send back its endpoints, read the event types and messages), log it out, and expire an
 * application's tokens (every one, or by session). Every call must be taken.
 */
import { Svix } from "svix";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  await api.svix.application.create({ name: "Shop", uid: "shop", rateLimit: 5 });
  await api.svix.endpoint.create("shop", { url: "http://127.0.0.1:9/h", uid: "orders" });
  await api.svix.eventType.create({ name: "order.placed", description: "d" });
  await api.svix.eventType.create({ name: "order.beta", description: "d", featureFlags: ["beta"] });
});
afterAll(async () => api.close());

it("makes links for a read application, a new one and a bare call", async () => {
  const auth = api.svix.authentication;
  const app = await api.svix.application.get("shop");
  const link = await auth.appPortalAccess("shop", {
    application: { ...app },
    featureFlags: ["beta"],
    expiry: 3600,
    sessionId: "session-1",
  });
  expect(link.url).toContain(link.token);
  expect((await auth.appPortalAccess("shop")).token).not.toBe(link.token);

  await auth.appPortalAccess("newco", {
    application: { name: "New Co", uid: "newco", rateLimit: 2, throttleRate: 2 },
  });
  expect((await api.svix.application.get("newco")).rateLimit).toBe(2);
});

it("serves the portal's calls, sends back its endpoint as read, and logs out", async () => {
  const { token } = await api.svix.authentication.appPortalAccess("shop", {
    featureFlags: ["beta"],
  });
  const portal = new Svix(token, { serverUrl: api.url });
  const read = await portal.endpoint.get("shop", "orders");
  expect(
    await portal.endpoint.update("shop", "orders", { ...read, description: "Mine" }),
  ).toMatchObject({ description: "Mine", uid: "orders" });
  const again = await portal.endpoint.get("shop", "orders");
  expect(await portal.endpoint.patch("shop", "orders", { ...again, rateLimit: 3 })).toMatchObject({
    rateLimit: 3,
    throttleRate: 3,
  });
  const types = await portal.eventType.list({ withContent: true });
  expect(types.data.map((t) => t.name)).toEqual(["order.beta", "order.placed"]);
  expect((await portal.application.get("shop")).uid).toBe("shop");
  expect((await portal.message.list("shop")).data).toEqual([]);

  await portal.authentication.logout();
  await expect(portal.endpoint.list("shop")).rejects.toMatchObject({ code: 401 });
});

it("expires an application's tokens, every one or by session", async () => {
  const auth = api.svix.authentication;
  const one = await auth.appPortalAccess("shop", { sessionId: "s-1" });
  const two = await auth.appPortalAccess("shop", { sessionId: "s-2" });
  await auth.expireAll("shop", { sessionIds: ["s-1"] });
  const as = (token: string) => new Svix(token, { serverUrl: api.url }).endpoint.list("shop");
  await expect(as(one.token)).rejects.toMatchObject({ code: 401 });
  expect((await as(two.token)).data).toHaveLength(1);
  await auth.expireAll("shop", {});
  await expect(as(two.token)).rejects.toMatchObject({ code: 401 });
  const three = await auth.appPortalAccess("shop");
  await auth.expireAll("shop");
  await expect(as(three.token)).rejects.toMatchObject({ code: 401 });
});
