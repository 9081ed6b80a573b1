import { afterAll, beforeAll, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { startApi, type ApiHarness } from "./harness.js";

const clock = new FakeClock();
let api: ApiHarness;
beforeAll(async () => {
  api = await startApi(
    { apiRateLimit: { ratePerSecond: 2, burst: 3, limitBootstrapToken: false } },
    clock,
  );
});
afterAll(() => api.close());

async function newToken(name: string): Promise<(path: string) => Promise<Response>> {
  const res = await api.call("POST", "/api/v1/tokens", { name, scope: "admin" });
  const { token } = (await res.json()) as { token: string };
  return (path) => api.call("GET", path, undefined, { authorization: `Bearer ${token}` });
}

it("answers 429 with Retry-After once a token spends its burst, and again after the wait", async () => {
  const busy = await newToken("busy");
  const other = await newToken("other");
  for (let i = 0; i < 3; i++) expect((await busy("/api/v1/app")).status).toBe(200);
  const limited = await busy("/api/v1/app");
  expect(limited.status).toBe(429);
  expect(limited.headers.get("retry-after")).toBe("1");
  expect(await limited.json()).toMatchObject({ code: "rate_limited" });

  // Other tokens keep their own buckets; the bootstrap admin token is not limited by default.
  expect((await other("/api/v1/app")).status).toBe(200);
  for (let i = 0; i < 10; i++) expect((await api.call("GET", "/api/v1/app")).status).toBe(200);

  clock.advance(500);
  expect((await busy("/api/v1/app")).status).toBe(200);
  expect((await busy("/api/v1/app")).status).toBe(429);
});

it("never limits a request that has no valid token: that is a 401", async () => {
  const res = await api.call("GET", "/api/v1/app", undefined, { authorization: "Bearer nope" });
  expect(res.status).toBe(401);
});
