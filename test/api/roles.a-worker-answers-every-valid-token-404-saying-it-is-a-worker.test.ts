/**
 * A `--role worker` process serves only its health, readiness and /metrics; every other API route
 * is one it does not have, answered 404 saying it is a worker so that whoever pointed a client at
 * its port knows where to point it instead. That holds for an application's token (a customer's
 * backend, a portal link) as for an admin's: "this route needs an admin token" would send its
 * holder to an operator for a token that finds nothing there either. Without a token, 401.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildApi } from "../../src/api/server.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let worker: FastifyInstance;
let appToken = "";
beforeAll(async () => {
  api = await startApi();
  const appId = (await api.svix.application.create({ name: "Shop", uid: "shop" })).id;
  const made = await api.call("POST", "/api/v1/tokens", { name: "shop", scope: "app", appId });
  appToken = ((await made.json()) as { token: string }).token;
  // A worker over the same store, as a fleet's worker shares the API processes' database.
  const config = Object.freeze({ ...api.deps.config, role: "worker" as const });
  worker = buildApi({ ...api.deps, config });
  await worker.ready();
});
afterAll(async () => {
  await worker.close();
  await api.close();
});

const get = (url: string, token?: string) =>
  worker.inject({
    method: "GET",
    url,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });

it("answers an application's token 404 saying it is a worker, as an admin's", async () => {
  for (const url of ["/api/v1/app/shop/msg", "/api/v1/app", "/api/v1/tokens"]) {
    for (const token of [appToken, api.token]) {
      const res = await get(url, token);
      expect(res.statusCode, url).toBe(404);
      expect(res.json<{ detail: string }>().detail, url).toContain(
        "this is a --role worker process",
      );
    }
    expect((await get(url)).statusCode, url).toBe(401);
  }
});

it("still answers an application's token 403 on /metrics, a route it has", async () => {
  expect((await get("/metrics", appToken)).statusCode).toBe(403);
});
