/**
 * PostgreSQL goes away under a running hookline (a loopback proxy in front of the shared server is
 * cut, never the server itself): the API answers 503 and accepts nothing, the engine keeps the
 * outcome it could not record, and everything resumes by itself when the database is back.
 *
 * Stopping hookline (SIGTERM) while the database is away ends within the shutdown timeout instead
 * of retrying forever to record an outcome the database cannot take, so the process can exit and
 * be restarted; that delivery is still claimed in the store, and is sent again after restart.
 */
import { afterEach, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { TcpProxy } from "../support/tcp-proxy.js";

let h: TestHookline | undefined;
let rx: GatedReceiver | undefined;
let proxy: TcpProxy | undefined;
const schema = freshSchemaName();

afterEach(async () => {
  await proxy?.open().catch(() => undefined);
  await h?.stop();
  await rx?.close();
  await proxy?.cut();
  await dropSchema(schema);
});

it("answers 503 with Retry-After while the database is away, then resumes on its own", async () => {
  const pgUrl = new URL(TEST_DATABASE_URL);
  proxy = await TcpProxy.start({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  pgUrl.port = String(proxy.port);
  rx = await GatedReceiver.start();
  h = await startHookline({
    env: { DATABASE_URL: pgUrl.toString(), HOOKLINE_PG_SCHEMA: schema },
  });
  const app = await h.svix.application.create({ name: "shop" });
  await h.svix.endpoint.create(app.id, { url: rx.url() });
  const first = await h.svix.message.create(app.id, { eventType: "a.b", payload: { n: 1 } });
  await rx.arrived(1);

  // The database goes away while the first delivery is in flight.
  await proxy.cut();
  rx.release();

  const refused = await fetch(`${h.url}/api/v1/app/${app.id}/msg`, {
    method: "POST",
    headers: { authorization: `Bearer ${h.token}`, "content-type": "application/json" },
    body: JSON.stringify({ eventType: "a.b", eventId: "while-down", payload: { n: 2 } }),
  });
  expect(refused.status).toBe(503);
  expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(await refused.json()).toMatchObject({ code: "store_unavailable" });
  const read = await h.api("GET", `/api/v1/app/${app.id}/msg`);
  expect(read.status).toBe(503);

  // Back: the held outcome is recorded, and new messages are accepted and delivered.
  await proxy.open();
  await h.waitFor(deliveryOf(first.id, "succeeded"), 30_000);
  const later = await h.svix.message.create(app.id, { eventType: "a.b", payload: { n: 3 } });
  await h.waitFor(deliveryOf(later.id, "succeeded"), 30_000);
  const stored = await h.svix.message.list(app.id);
  expect(stored.data.map((m) => m.id).sort()).toEqual([first.id, later.id].sort());
  expect(stored.data.some((m) => m.eventId === "while-down")).toBe(false);
});

it("stops while the database is away, and the delivery it could not record is sent after restart", async () => {
  const pgUrl = new URL(TEST_DATABASE_URL);
  proxy = await TcpProxy.start({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  pgUrl.port = String(proxy.port);
  const env = {
    DATABASE_URL: pgUrl.toString(),
    HOOKLINE_PG_SCHEMA: schema,
    HOOKLINE_SHUTDOWN_TIMEOUT_MS: "1000",
    // The restarted process takes over the stopped one's claim once it is this silent.
    HOOKLINE_WORKER_DEAD_AFTER_MS: "3000",
  };
  rx = await GatedReceiver.start();
  const first = await startHookline({ env });
  h = first;
  const app = await first.svix.application.create({ name: "shop" });
  await first.svix.endpoint.create(app.id, { url: rx.url() });
  const msg = await first.svix.message.create(app.id, { eventType: "a.b", payload: { n: 1 } });
  await rx.arrived(1);

  // The database goes away; the receiver answers; the outcome cannot be recorded.
  await proxy.cut();
  rx.release();
  // Whether it calls the stop clean or not, it must end: the process exits after it.
  await first.stop(true).catch(() => undefined);
  h = undefined;

  await proxy.open();
  h = await startHookline({ env, dataDir: first.dataDir });
  await h.waitFor(deliveryOf(msg.id, "succeeded"), 30_000);
  expect(rx.ids.filter((id) => id === msg.id)).toHaveLength(2);
}, 60_000);
