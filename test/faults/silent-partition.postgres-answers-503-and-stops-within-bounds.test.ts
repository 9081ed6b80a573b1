/**
 * PostgreSQL's host vanishes from the network without a word (a loopback proxy in front of the
 * shared server stops passing bytes either way but keeps every connection open: no reset, no
 * close), the case where only the kernel's retransmission timeout, about 15 minutes, would end a
 * wait. With HOOKLINE_PG_QUERY_TIMEOUT_MS the API answers 503 instead of hanging, hookline carries
 * on once the network is back, and stopping hookline meanwhile ends.
 *
 * The bounds below are generous on purpose (many times the query timeout): they tell an answer
 * from a hang, not how fast the answer is.
 */
import { rmSync } from "node:fs";
import { request } from "node:http";
import { afterEach, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { within } from "../support/within.js";

const QUERY_TIMEOUT_MS = 1_500;
/** Long enough for any answer, short of a hang: a wait may take a query timeout, or a connect's. */
const ANSWERS_WITHIN_MS = 30_000;

let h: TestHookline | undefined;
let rx: Receiver | undefined;
let proxy: TcpProxy | undefined;
const schema = freshSchemaName();

afterEach(async () => {
  proxy?.forward();
  await h?.stop();
  h = undefined;
  await rx?.close();
  await proxy?.cut();
  await dropSchema(schema);
});

async function hooklineBehindProxy(): Promise<TestHookline> {
  const pgUrl = new URL(TEST_DATABASE_URL);
  proxy = await TcpProxy.start({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  pgUrl.port = String(proxy.port);
  rx = await Receiver.start();
  return startHookline({
    env: {
      DATABASE_URL: pgUrl.toString(),
      HOOKLINE_PG_SCHEMA: schema,
      HOOKLINE_PG_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      HOOKLINE_SHUTDOWN_TIMEOUT_MS: "1000",
    },
  });
}

function post(appId: string, eventId: string): Promise<Response> {
  return fetch(`${h!.url}/api/v1/app/${appId}/msg`, {
    method: "POST",
    headers: { authorization: `Bearer ${h!.token}`, "content-type": "application/json" },
    body: JSON.stringify({ eventType: "a.b", eventId, payload: { eventId } }),
  });
}

/** POSTs a message with `Connection: close`; resolves with the status. */
function postClosing(appId: string, eventId: string): Promise<number> {
  const body = JSON.stringify({ eventType: "a.b", eventId, payload: { eventId } });
  return new Promise((resolve, reject) => {
    const req = request(`${h!.url}/api/v1/app/${appId}/msg`, {
      method: "POST",
      agent: false,
      headers: { authorization: `Bearer ${h!.token}`, "content-type": "application/json" },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

it("answers 503 while the database's host is silent, then carries on when it is back", async () => {
  h = await hooklineBehindProxy();
  const app = await h.svix.application.create({ name: "shop" });
  await h.svix.endpoint.create(app.id, { url: rx!.url() });
  const before = await h.svix.message.create(app.id, { eventType: "a.b", payload: { n: 1 } });
  await h.waitFor(deliveryOf(before.id, "succeeded"), 20_000);

  proxy!.blackHole();
  const refused = await within(ANSWERS_WITHIN_MS, "POST /msg", post(app.id, "while-silent"));
  expect(refused.status).toBe(503);
  expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(await refused.json()).toMatchObject({ code: "store_unavailable" });
  const read = await within(
    ANSWERS_WITHIN_MS,
    "GET /msg",
    h.api("GET", `/api/v1/app/${app.id}/msg`),
  );
  expect(read.status).toBe(503);

  // The network is back: the connections given up are gone, new ones carry on.
  proxy!.forward();
  const after = await h.svix.message.create(app.id, { eventType: "a.b", payload: { n: 2 } });
  await h.waitFor(deliveryOf(after.id, "succeeded"), 20_000);
  const stored = await h.svix.message.list(app.id);
  expect(stored.data.map((m) => m.id).sort()).toEqual([before.id, after.id].sort());
}, 120_000);

it("stops while the database's host is silent, with a request waiting on it", async () => {
  h = await hooklineBehindProxy();
  const app = await h.svix.application.create({ name: "shop" });
  await h.svix.endpoint.create(app.id, { url: rx!.url() });
  // A LISTEN connection, pooled connections and a request all wait on the silent host.
  proxy!.blackHole();
  // On a connection of its own that closes after the answer: one kept alive would hold the
  // API's close for its idle timeout, which is not what this test is about.
  const waiting = postClosing(app.id, "in-flight");
  // Gives the request time to reach the store; the test holds without it, proving less.
  await new Promise((r) => setTimeout(r, 300));
  const stopping = h;
  h = undefined;
  // It ends, cleanly or saying what it could not write (the worker's leaving, which the others
  // then learn from its silence): either way the process can exit.
  const stopped = await within(
    ANSWERS_WITHIN_MS,
    "stop",
    stopping.hookline.stop().then(
      () => "clean",
      (err: unknown) => err,
    ),
  );
  expect(stopped === "clean" || stopped instanceof StoreUnavailableError).toBe(true);
  expect(await within(ANSWERS_WITHIN_MS, "the request in flight", waiting)).toBe(503);
  // The store was closed too, even when an earlier step failed.
  await expect(stopping.hookline.store.ping()).rejects.toThrow(/closed/);
  rmSync(stopping.dataDir, { recursive: true, force: true });
}, 120_000);
