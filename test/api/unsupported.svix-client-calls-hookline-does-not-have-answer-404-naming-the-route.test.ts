/**
 * The Svix client calls api.md lists under "What hookline does not have" answer 404 with a body
 * that names the route hookline does not serve, so a client user sees at once that the call is
 * not there rather than that a resource is missing; nothing is changed. The calls hookline has
 * beside them keep working.
 */
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

it("answers each with 404 naming its route", async () => {
  const s = api.svix;
  const since = new Date(Date.now() - 60_000);
  const calls: [string, () => Promise<unknown>][] = [
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
    ["integration.list", () => s.integration.list("shop")],
    ["integration.create", () => s.integration.create("shop", { name: "Zapier" })],
    ["statistics.aggregateEventTypes", () => s.statistics.aggregateEventTypes()],
    [
      "statistics.aggregateAppStats",
      () => s.statistics.aggregateAppStats({ since, until: new Date() }),
    ],
    ["backgroundTask.list", () => s.backgroundTask.list()],
  ];
  for (const [name, call] of calls) {
    const err = (await call().then(
      () => null,
      (e: unknown) => e,
    )) as { code?: number; body?: { code?: string; detail?: string } } | null;
    expect(err?.code, name).toBe(404);
    expect(err?.body?.detail, name).toMatch(/^no route for /);
  }
  // Nothing was taken away, and the calls hookline has still answer.
  expect((await s.message.get("shop", msgId)).payload).toEqual({ a: 1 });
  expect(await s.endpoint.getStats("shop", "orders")).toMatchObject({ success: 0 });
});
