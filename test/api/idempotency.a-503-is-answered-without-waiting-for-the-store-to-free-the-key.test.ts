/**
 * A request that failed because the store is away (503) must free its key, which needs the store
 * too. With the store's host silent, that attempt waits as long as the request's own failed call
 * did (up to HOOKLINE_PG_QUERY_TIMEOUT_MS): the 503 is answered without waiting for it, and the
 * key is freed once the store answers.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApi } from "../../src/api/server.js";
import { StoreUnavailableError } from "../../src/errors.js";
import type { Store } from "../../src/store/port.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { holdFirstCall } from "../support/held-store-call.js";
import { withOverrides } from "../support/overrides.js";
import { startApi, type ApiHarness } from "./harness.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let api: ApiHarness<SqliteStore | PostgresStore>;
  let app: FastifyInstance;
  beforeEach(async () => {
    api = await startApi({}, undefined, kind);
  });
  afterEach(async () => {
    await app.close();
    await api.close();
  });

  it("answers 503 while freeing the key still waits on the store, and frees it after", async () => {
    // The first creation fails as if the database had gone silent; freeing its key waits too.
    let failed = false;
    const failing = withOverrides<Store>(api.store, {
      createApplication: async (a) => {
        if (failed) return api.store.createApplication(a);
        failed = true;
        throw new StoreUnavailableError("PostgreSQL store unavailable (Query read timeout)");
      },
    });
    const freeing = holdFirstCall(failing, "abandonIdempotent");
    app = buildApi({ ...api.deps, store: freeing.store });
    await app.ready();
    const create = () =>
      app.inject({
        method: "POST",
        url: "/api/v1/app",
        headers: { authorization: `Bearer ${api.token}`, "idempotency-key": "create-acme" },
        payload: { name: "acme" },
      });

    const refused = await create();
    expect(refused.statusCode).toBe(503);
    await freeing.reached;

    freeing.release();
    const retry = await create();
    expect(retry.statusCode).toBe(201);
  });
});
