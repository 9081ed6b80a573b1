/**
 * The Svix client calls api.md lists under "What hookline does not have" answer 404 with a body
 * that names the route hookline does not serve, so a client user sees at once that the call is
 * not there rather than that a resource is missing; nothing is changed. The calls hookline has
 * beside them keep working. So they do for an application's token (a portal link's, a customer's
 * backend): no token reaches a route hookline does not have, so "this route needs an admin token"
 * would send its holder to ask an operator for one that does no better.
 */
import { Svix } from "svix";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let msgId = "";
beforeAll(async () => {
  api = await startApi();
  await api.svix.application.create({ name: "Shop", uid: "shop" });
  await api.svix.endpoint.create("shop", { url: "http://127.0.0.1:9/h", uid: "orders" });
  msgId = (await api.svix.message.create("shop", { eventType: "ping", payload: { a: 1 } })).id;
});
afterAll(async () => api.close());

/** Each call hookline does not have, made through `s` on the application `shop`. */
function unsupportedCalls(s: Svix): [string, () => Promise<unknown>][] {
  const since = new Date(Date.now() - 60_000);
  return [
    ["endpoint.transformationGet", () => s.endpoint.transformationGet("shop", "orders")],
    [
      "endpoint.patchTransformation",
      () => s.endpoint.patchTransformation("shop", "orders", { enabled: true }),
    ],
    [
      "endpoint.transformationPartialUpdate",
      () => s.endpoint.transformationPartialUpdate("shop", "orders", { enabled: true }),
    ],
    ["endpoint.replayMissing", () => s.endpoint.replayMissing("shop", "orders", { since })],
    ["endpoint.bulkReplay", () => s.endpoint.bulkReplay("shop", "orders", { since })],
    ["eventType.importOpenapi", () => s.eventType.importOpenapi({ spec: {} })],
    ["message.expungeContent", () => s.message.expungeContent("shop", msgId)],
    ["message.expungeAllContents", () => s.message.expungeAllContents("shop")],
    [
      "messageAttempt.expungeContent",
      () => s.messageAttempt.expungeContent("shop", msgId, "atmpt_x"),
    ],
    ["authentication.dashboardAccess", () => s.authentication.dashboardAccess("shop")],
    ["authentication.streamPortalAccess", () => s.authentication.streamPortalAccess("strm_x")],
    ["authentication.streamLogout", () => s.authentication.streamLogout()],
    ["authentication.streamExpireAll", () => s.authentication.streamExpireAll("strm_x")],
    [
      "authentication.getStreamPollerToken",
      () => s.authentication.getStreamPollerToken("strm_x", "sink_x"),
    ],
    [
      "authentication.rotateStreamPollerToken",
      () => s.authentication.rotateStreamPollerToken("strm_x", "sink_x"),
    ],
    ["integration.list", () => s.integration.list("shop")],
    ["integration.create", () => s.integration.create("shop", { name: "Zapier" })],
    ["statistics.aggregateEventTypes", () => s.statistics.aggregateEventTypes()],
    [
      "statistics.aggregateAppStats",
      () => s.statistics.aggregateAppStats({ since, until: new Date() }),
    ],
    ["backgroundTask.list", () => s.backgroundTask.list()],
  ];
}

/** Makes each call and expects a 404 whose detail names the route. */
async function expectEach404(calls: [string, () => Promise<unknown>][]): Promise<void> {
  for (const [name, call] of calls) {
    const err = (await call().then(
      () => null,
      (e: unknown) => e,
    )) as { code?: number; body?: { code?: string; detail?: string } } | null;
    expect(err?.code, name).toBe(404);
    expect(err?.body?.detail, name).toMatch(/^no route for /);
  }
}

it("answers each with 404 naming its route", async () => {
  const s = api.svix;
  await expectEach404(unsupportedCalls(s));
  // Nothing was taken away, and the calls hookline has still answer.
  expect((await s.message.get("shop", msgId)).payload).toEqual({ a: 1 });
  expect(await s.endpoint.getStats("shop", "orders")).toMatchObject({ success: 0 });
});

it("answers an application's token the same, not 403", async () => {
  const made = await api.call("POST", "/api/v1/tokens", {
    name: "shop backend",
    scope: "app",
    appId: "shop",
  });
  const { token } = (await made.json()) as { token: string };
  const s = new Svix(token, { serverUrl: api.url });
  await expectEach404(unsupportedCalls(s));
  // Its own routes still answer it, and an admin route it may not call is still 403.
  expect((await s.message.get("shop", msgId)).payload).toEqual({ a: 1 });
  const tokens = await api.call("GET", "/api/v1/tokens", undefined, {
    authorization: `Bearer ${token}`,
  });
  expect(tokens.status).toBe(403);
});
