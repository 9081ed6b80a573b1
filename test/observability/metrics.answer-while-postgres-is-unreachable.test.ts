/**
 * /metrics during a database outage, when operators need it most: hookline's PostgreSQL
 * connections go through a loopback proxy that the test cuts (the server restarted) and then
 * black-holes (its host vanished). Scraped with the admin token, the page still answers 200 with
 * every metric kept in memory, says the store could not be read (`hookline_store_up 0`) and leaves
 * out the gauges read from the store rather than showing them as zero; once the database is back,
 * they return. Without the store, only an admin token this process found valid before is taken.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { parseMetrics } from "../support/metrics.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { within } from "../support/within.js";

/** The gauges read from the store at each scrape. */
const FROM_THE_STORE = [
  "hookline_queue_pending_deliveries",
  "hookline_queue_lag_seconds",
  "hookline_dlq_depth",
  "hookline_dlq_oldest_age_seconds",
];
/** Long enough for any answer, short of a hang (a silent database holds a query 30 s). */
const ANSWERS_WITHIN_MS = 20_000;

const schema = freshSchemaName();
let proxy: TcpProxy;
let rx: Receiver;
let h: TestHookline;
beforeAll(async () => {
  const pgUrl = new URL(TEST_DATABASE_URL);
  proxy = await TcpProxy.start({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  pgUrl.port = String(proxy.port);
  rx = await Receiver.start();
  h = await startHookline({
    env: {
      DATABASE_URL: pgUrl.toString(),
      HOOKLINE_PG_SCHEMA: schema,
      HOOKLINE_PG_POOL_SIZE: "4",
      HOOKLINE_SHUTDOWN_TIMEOUT_MS: "1000",
    },
  });
});
afterAll(async () => {
  proxy.forward();
  await h.stop();
  await rx.close();
  await proxy.cut();
  await dropSchema(schema);
});

async function scrape(token = h.token): Promise<{ status: number; metrics: Map<string, number> }> {
  const res = await within(
    ANSWERS_WITHIN_MS,
    "GET /metrics",
    fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${token}` } }),
  );
  const text = await res.text();
  return { status: res.status, metrics: parseMetrics(text) };
}

describe("/metrics while PostgreSQL is unreachable", () => {
  it("answers 200 with what it holds in memory, and leaves out what it could not read", async () => {
    const ep = await anEndpoint(h, rx.url("/ok"));
    await h.waitFor(deliveryOf(await post(h, ep.appId, { n: 1 }), "succeeded"));
    const attempts = `hookline_delivery_attempts_total{endpoint="${ep.endpointId}",class="2xx"}`;

    // Two more admin tokens: one never used here, one used and then revoked.
    const aToken = async () => {
      const res = await h.api<{ id: string; token: string }>("POST", "/api/v1/tokens", {
        name: "ops",
        scope: "admin",
      });
      return res.body;
    };
    const unused = await aToken();
    const revoked = await aToken();
    expect((await scrape(revoked.token)).status).toBe(200);
    expect((await h.api("DELETE", `/api/v1/tokens/${revoked.id}`)).status).toBe(204);

    const up = await scrape();
    expect(up.status).toBe(200);
    expect(up.metrics.get("hookline_store_up")).toBe(1);
    expect(up.metrics.get(attempts)).toBe(1);
    for (const name of FROM_THE_STORE) expect(up.metrics.has(name)).toBe(true);

    await proxy.cut();
    const cut = await scrape();
    expect(cut.status).toBe(200);
    expect(cut.metrics.get("hookline_store_up")).toBe(0);
    expect(cut.metrics.get(attempts)).toBe(1);
    expect(cut.metrics.get("hookline_metrics_tracked_endpoints")).toBe(1);
    expect(cut.metrics.get(`hookline_endpoint_in_flight{endpoint="${ep.endpointId}"}`)).toBe(0);
    for (const name of FROM_THE_STORE) expect(cut.metrics.has(name)).toBe(false);
    // Only a token this process found valid before the outage is taken without the store.
    expect((await scrape(unused.token)).status).toBe(503);
    expect((await scrape(revoked.token)).status).toBe(503);

    // Back: the pool reconnects on the next query; wait for that state, not for a time.
    await proxy.open();
    let back = await scrape();
    while (back.metrics.get("hookline_store_up") !== 1) back = await scrape();
    for (const name of FROM_THE_STORE) expect(back.metrics.has(name)).toBe(true);

    // A silent database answers nothing at all: the scrape still does.
    proxy.blackHole();
    const silent = await scrape();
    expect(silent.status).toBe(200);
    expect(silent.metrics.get("hookline_store_up")).toBe(0);
    expect(silent.metrics.get(attempts)).toBe(1);
    for (const name of FROM_THE_STORE) expect(silent.metrics.has(name)).toBe(false);
    proxy.forward();
  });
});
