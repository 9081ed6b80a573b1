/**
 * The Svix-compatible health check during a silent database outage: hookline's PostgreSQL
 * connections go through a loopback proxy that black-holes them (the server's host vanished, the
 * connections stay open and nothing answers). GET /api/v1/health answers 503 within a bounded
 * time, as readiness does, instead of waiting out the 30-second query timeout; once the network is
 * back it answers 204 again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { within } from "../support/within.js";

/** Long enough for any answer, short of a hang (a silent database holds a query 30 s). */
const ANSWERS_WITHIN_MS = 20_000;

const schema = freshSchemaName();
let proxy: TcpProxy;
let h: TestHookline;
beforeAll(async () => {
  const pgUrl = new URL(TEST_DATABASE_URL);
  proxy = await TcpProxy.start({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  pgUrl.port = String(proxy.port);
  h = await startHookline({
    env: {
      DATABASE_URL: pgUrl.toString(),
      HOOKLINE_PG_SCHEMA: schema,
      HOOKLINE_PG_POOL_SIZE: "2",
      HOOKLINE_SHUTDOWN_TIMEOUT_MS: "1000",
    },
  });
});
afterAll(async () => {
  proxy.forward();
  await h.stop();
  await proxy.cut();
  await dropSchema(schema);
});

const health = async () => {
  const res = await within(
    ANSWERS_WITHIN_MS,
    "GET /api/v1/health",
    fetch(`${h.url}/api/v1/health`),
  );
  return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as unknown) };
};

describe("GET /api/v1/health while PostgreSQL is silent", () => {
  it("answers 503 without waiting out the query timeout, and 204 once the database answers", async () => {
    expect((await health()).status).toBe(204);
    proxy.blackHole();
    const silent = await health();
    expect(silent.status).toBe(503);
    expect(silent.body).toMatchObject({ code: "store_unavailable" });
    proxy.forward();
    // Held queries drain and the pool answers again; wait for that state, not for a time.
    let back = await health();
    while (back.status !== 204) back = await health();
    expect(back.status).toBe(204);
  });
});
