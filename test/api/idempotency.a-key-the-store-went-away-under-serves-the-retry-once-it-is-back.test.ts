/**
 * A request takes its idempotency key, then the store goes away under it, so what the request
 * leaves of its key cannot be written as it ends: the key's release (it failed with a 503 and
 * Retry-After), or its answer (it had succeeded). Once the store is back, the client's retry with
 * the same key is served as that write says, whichever API process it reaches: the retry runs
 * after a 503, and an answer kept is replayed. The process the request ended in writes it before
 * it begins a request with the key, and tries on its own about once a second meanwhile. Neither
 * waits out the key's 60 s lock (the retry answered 409 in progress until then).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApi } from "../../src/api/server.js";
import type { Store } from "../../src/store/port.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { FakeClock } from "../support/fake-clock.js";
import { storeThatGoesAway } from "../support/store-that-goes-away.js";
import { startApi, type ApiHarness } from "./harness.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let api: ApiHarness<SqliteStore | PostgresStore>;
  let apps: FastifyInstance[] = [];
  const clock = new FakeClock(Date.now());
  beforeEach(async () => {
    api = await startApi({}, clock, kind);
  });
  afterEach(async () => {
    for (const app of apps) await app.close();
    apps = [];
    await api.close();
  });

  /** An API process over the store (or over `store`), with in-memory state of its own. */
  const aProcess = async (store: Store = api.store): Promise<FastifyInstance> => {
    const app = buildApi({ ...api.deps, store });
    apps.push(app);
    await app.ready();
    return app;
  };
  const create = (app: FastifyInstance) =>
    app.inject({
      method: "POST",
      url: "/api/v1/app",
      headers: { authorization: `Bearer ${api.token}`, "idempotency-key": "create-acme" },
      payload: { name: "acme" },
    });
  const names = async () => (await api.svix.application.list()).data.map((a) => a.name);

  /** Retries through `app` until it is no longer told the key is in progress, the clock moving 1 s a try. */
  async function retryUntilServed(app: FastifyInstance) {
    const backAt = clock.now();
    let retry = await create(app);
    while (retry.statusCode === 409 && clock.now() - backAt < 60_000) {
      clock.advance(1_000);
      await new Promise((r) => setImmediate(r));
      retry = await create(app);
    }
    // A few seconds of the clock, not the lock's 60.
    expect(clock.now() - backAt).toBeLessThan(10_000);
    return retry;
  }

  describe("the store goes away as the request runs: 503", () => {
    it("the retry reaching the same process runs", async () => {
      const outage = storeThatGoesAway(api.store, "createApplication");
      const first = await aProcess(outage.store);

      const refused = await create(first);
      expect(refused.statusCode).toBe(503);
      expect(refused.headers["retry-after"]).toBeDefined();

      outage.back();
      const retry = await create(first);
      expect(retry.statusCode).toBe(201);
      expect(retry.headers["idempotent-replayed"]).toBeUndefined();
      expect(await names()).toEqual(["acme"]);
    });

    it("the retry reaching another process runs", async () => {
      const outage = storeThatGoesAway(api.store, "createApplication");
      const first = await aProcess(outage.store);
      const other = await aProcess();

      expect((await create(first)).statusCode).toBe(503);
      // While the first process cannot release the key, another process finds it taken.
      expect((await create(other)).statusCode).toBe(409);

      outage.back();
      const retry = await retryUntilServed(other);
      expect(retry.statusCode).toBe(201);
      expect(await names()).toEqual(["acme"]);
    });
  });

  describe("the store goes away as the answer is kept", () => {
    it("the retry reaching the same process replays the answer", async () => {
      const outage = storeThatGoesAway(api.store, "finishIdempotent");
      const first = await aProcess(outage.store);

      const answered = await create(first);
      expect(answered.statusCode).toBe(201);

      outage.back();
      const retry = await create(first);
      expect(retry.statusCode).toBe(201);
      expect(retry.headers["idempotent-replayed"]).toBe("true");
      expect(retry.body).toBe(answered.body);
      expect(await names()).toEqual(["acme"]);
    });

    it("the retry reaching another process replays the answer", async () => {
      const outage = storeThatGoesAway(api.store, "finishIdempotent");
      const first = await aProcess(outage.store);
      const other = await aProcess();

      const answered = await create(first);
      expect(answered.statusCode).toBe(201);

      outage.back();
      const retry = await retryUntilServed(other);
      expect(retry.headers["idempotent-replayed"]).toBe("true");
      expect(retry.body).toBe(answered.body);
      expect(await names()).toEqual(["acme"]);
    });
  });
});
