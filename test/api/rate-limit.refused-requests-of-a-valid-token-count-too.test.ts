/**
 * docs/security.md: each API token has a bucket, and past it the API answers 429 before doing any
 * work; only requests without a valid token (401) are not counted. An application's token asking
 * for another application's routes (404, after a store lookup) or for admin routes (403) is a
 * valid token: those requests count, or it could call the API without any limit.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { startApi, type ApiHarness } from "./harness.js";

const clock = new FakeClock();
let api: ApiHarness;
let token = "";
let ownApp = "";
let otherApp = "";
beforeAll(async () => {
  api = await startApi(
    { apiRateLimit: { ratePerSecond: 2, burst: 3, limitBootstrapToken: false } },
    clock,
  );
  ownApp = (await api.svix.application.create({ name: "own" })).id;
  otherApp = (await api.svix.application.create({ name: "other" })).id;
  const made = await api.call("POST", "/api/v1/tokens", {
    name: "app",
    scope: "app",
    appId: ownApp,
  });
  token = ((await made.json()) as { token: string }).token;
});
afterAll(() => api.close());

const as = (path: string) => api.call("GET", path, undefined, { authorization: `Bearer ${token}` });

it("limits an app token sending to another application's routes", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await as(`/api/v1/app/${otherApp}/msg`)).status);
  expect(statuses.slice(0, 3)).toEqual([404, 404, 404]);
  expect(statuses.slice(3)).toContain(429);
});

it("limits an app token sending to admin routes", async () => {
  clock.advance(10_000);
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await as("/api/v1/tokens")).status);
  expect(statuses.slice(0, 3)).toEqual([403, 403, 403]);
  expect(statuses.slice(3)).toContain(429);
});
