/**
 * PostgreSQL goes away (a loopback proxy in front of the shared server is cut) just after a
 * request took its idempotency key: the request is answered 503, and the key cannot be released
 * then. Once the database is back, the client's retry with the same key runs, on the process that
 * answered 503 and on another one, instead of being told for the rest of the key's 60 s lock that
 * the request is in progress.
 */
import type { FastifyInstance } from "fastify";
import { afterEach, expect, it } from "vitest";
import { buildApi } from "../../src/api/server.js";
import { startApi, type ApiHarness } from "../api/harness.js";
import { FakeClock } from "../support/fake-clock.js";
import { withOverrides } from "../support/overrides.js";
import { TEST_DATABASE_URL } from "../support/postgres.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { Store } from "../../src/store/port.js";

let api: ApiHarness<PostgresStore> | undefined;
let proxy: TcpProxy | undefined;
let apps: FastifyInstance[] = [];

afterEach(async () => {
  await proxy?.open().catch(() => undefined);
  for (const app of apps) await app.close();
  apps = [];
  await api?.close();
  await proxy?.cut();
});

it("the retry with the key runs once the database is back, on either process", async () => {
  const pgUrl = new URL(TEST_DATABASE_URL);
  proxy = await TcpProxy.start({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  pgUrl.port = String(proxy.port);
  const clock = new FakeClock(Date.now());
  api = await startApi({}, clock, "postgres", pgUrl.toString());
  const cutting = proxy;
  const store = api.store;
  // The first application created cuts the database away first: its key is already taken.
  let cut = false;
  const goingAway = withOverrides<Store>(store, {
    createApplication: async (app) => {
      if (!cut) {
        cut = true;
        await cutting.cut();
      }
      return store.createApplication(app);
    },
  });
  const aProcess = async (over: Store) => {
    const app = buildApi({ ...api!.deps, store: over });
    apps.push(app);
    await app.ready();
    return app;
  };
  const first = await aProcess(goingAway);
  const other = await aProcess(store);
  const create = (app: FastifyInstance, key: string) =>
    app.inject({
      method: "POST",
      url: "/api/v1/app",
      headers: { authorization: `Bearer ${api!.token}`, "idempotency-key": key },
      payload: { name: key },
    });

  expect((await create(first, "to-the-same")).statusCode).toBe(503);
  await proxy.open();
  const retried = await create(first, "to-the-same");
  expect(retried.statusCode).toBe(201);

  cut = false;
  expect((await create(first, "to-another")).statusCode).toBe(503);
  await proxy.open();
  // The first process releases the key on its own, trying about once a second.
  const backAt = clock.now();
  let elsewhere = await create(other, "to-another");
  while (elsewhere.statusCode === 409 && clock.now() - backAt < 60_000) {
    clock.advance(1_000);
    await new Promise((r) => setTimeout(r, 50));
    elsewhere = await create(other, "to-another");
  }
  expect(elsewhere.statusCode).toBe(201);
  expect(clock.now() - backAt).toBeLessThan(10_000);
  const names = (await api.svix.application.list()).data.map((a) => a.name).sort();
  expect(names).toEqual(["to-another", "to-the-same"]);
});
