/**
 * A team that started on SQLite moves to PostgreSQL with `hookline store copy`: a hookline started
 * on the copy shows everything the SQLite one showed (lists, gets, pages and cursors), signs with
 * the same secrets, sends what was still to be sent, sorts new messages after the old ones and
 * replays an idempotency key taken before the move.
 */
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { expect, it } from "vitest";
import { untilJob, type JobOut } from "../support/dlq.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { adminQuery, aSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";
import { readEverything, runStoreCopy, startHooklineOnTheCopy } from "../support/store-copy.js";

const cleanup = useCleanup();

/** Receivers' answers by path: /ok takes, /flaky fails for now, /strict refuses (400). */
let strictStatus = 400;

it("a hookline started on the copy carries on where the SQLite one stopped", async () => {
  const key = randomBytes(32).toString("base64");
  const dataDir = tempDir(cleanup, "hookline-copy-");
  const schema = aSchemaName(cleanup);
  const rx = await Receiver.start((req) =>
    req.path === "/flaky"
      ? { status: 503 }
      : req.path === "/strict"
        ? { status: strictStatus }
        : { status: 200, body: "ok" },
  );
  cleanup.push(() => rx.close());
  const env = { HOOKLINE_ENCRYPTION_KEY: key };

  // ---- a SQLite hookline with a bit of everything ------------------------------------------
  const sqlite = await startHookline({ dataDir, env });
  cleanup.push(() => sqlite.stop(true));
  const ids = await populate(sqlite, rx);
  const before = await readEverything(sqlite);
  // Far enough that the copy and the start on PostgreSQL are done by then, on a busy machine too.
  const deliverAt = new Date(Date.now() + 20_000);
  const later = await sqlite.svix.message.create("globex", {
    eventType: "invoice.paid",
    payload: { later: true },
    deliverAt,
  });
  const waiting = await readEverything(sqlite);
  await sqlite.stop(true);

  // ---- the copy -------------------------------------------------------------------------------
  const copyEnv = { HOOKLINE_DATA_DIR: dataDir, ...env };
  const run = await runStoreCopy(copyEnv, ["--to", TEST_DATABASE_URL, "--schema", schema]);
  expect(run.failure).toBeNull();
  expect(run.out).toMatch(/applications: +3\n/); // two and the operational webhooks' own
  expect(run.out).toMatch(/messages: +\d+\n/);
  expect(run.out).toMatch(/dead letters: +2\n/);
  expect(run.out).toMatch(/replay jobs: +1\n/);
  expect(run.out).toMatch(/deliveries still to be sent: [1-9]/);
  expect(run.out).toContain("counted again in PostgreSQL before the commit: they match");
  expect(run.out).toContain("with the same HOOKLINE_ENCRYPTION_KEY (key ");

  // Started with another key, it refuses, naming the key the copied rows need.
  await expect(
    startHookline({
      dataDir,
      env: {
        DATABASE_URL: TEST_DATABASE_URL,
        HOOKLINE_PG_SCHEMA: schema,
        HOOKLINE_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      },
    }),
  ).rejects.toThrow(/encrypted with key [0-9a-f]{8}, which is not configured/);

  // ---- hookline on PostgreSQL, same key, same data dir (its admin token) --------------------
  const pg = await startHooklineOnTheCopy(cleanup, dataDir, schema, env);
  expect(pg.hookline.store.kind).toBe("postgres");
  expect(await readEverything(pg)).toEqual(waiting);
  expect(before).not.toEqual(waiting);

  // What was due later is sent, once, signed with the secret the endpoint had.
  await pg.waitFor(deliveryOf(later.id, "succeeded"), 30_000);
  const [sent] = rx.on("/later");
  expect(rx.on("/later")).toHaveLength(1);
  expect(Number(sent!.headers["webhook-timestamp"]) * 1000).toBeGreaterThanOrEqual(
    deliverAt.getTime() - 1_000,
  );
  const laterSecret = await pg.svix.endpoint.getSecret("globex", "later");
  expect(verify(laterSecret.key, sent!)).toEqual({ later: true });

  // A new message sorts after every copied one and is signed with the rotated secret.
  const fresh = await pg.svix.message.create("acme", {
    eventType: "invoice.paid",
    payload: { fresh: 1 },
    channels: ["eu"],
  });
  await pg.waitFor(deliveryOf(fresh.id, "succeeded", ids.main), 30_000);
  const listed = await pg.svix.message.list("acme", { limit: 250 });
  expect(listed.data[0]!.id).toBe(fresh.id);
  expect(listed.data.slice(1).every((m) => m.id < fresh.id)).toBe(true);
  const mainSecret = await pg.svix.endpoint.getSecret("acme", "main");
  expect(mainSecret.key).toBe(ids.mainSecret);
  const got = rx.on("/ok").find((r) => r.headers["webhook-id"] === fresh.id)!;
  expect(verify(mainSecret.key, got)).toEqual({ fresh: 1 });

  // The key taken before the move answers as it did: the same message, not a new one.
  const repeated = await pg.svix.message.create(
    "acme",
    { eventType: "invoice.paid", payload: { keyed: true } },
    { idempotencyKey: "keyed-1" },
  );
  expect(repeated.id).toBe(ids.keyed);

  // Tokens made on SQLite are honoured; the dead-letter history carries on its sequence.
  const byAppToken = await fetch(`${pg.url}/api/v1/app/acme`, {
    headers: { authorization: `Bearer ${ids.appToken}` },
  });
  expect(byAppToken.status).toBe(200);
  const copied = await adminQuery(`SELECT max(seq) AS m FROM ${schema}.dead_letter_events`);
  const [open] = (await pg.api<{ data: { id: string }[] }>("GET", "/api/v1/dlq?state=open")).body
    .data;
  const resolved = await pg.api("POST", `/api/v1/dlq/${open!.id}/resolve`, { note: "by hand" });
  expect(resolved.status).toBe(200);
  const added = await adminQuery(
    `SELECT seq FROM ${schema}.dead_letter_events WHERE dead_letter_id = $1 ORDER BY seq`,
    [open!.id],
  );
  expect(Number(added[added.length - 1]!.seq)).toBeGreaterThan(Number(copied[0]!.m));
}, 90_000);

/** Fills a SQLite hookline through its API; returns what the test checks afterwards. */
async function populate(h: TestHookline, rx: Receiver) {
  await h.svix.application.create({
    name: "Acme",
    uid: "acme",
    metadata: { tier: "gold" },
    rateLimit: 50,
  });
  await h.svix.application.create({ name: "Globex", uid: "globex" });
  await h.svix.eventType.create({ name: "invoice.paid", description: "An invoice was paid" });
  await h.svix.eventType.create({ name: "invoice.old", description: "Gone" });
  await h.svix.eventType.delete("invoice.old"); // archives it

  const main = await h.svix.endpoint.create("acme", {
    url: rx.url("/ok"),
    uid: "main",
    rateLimit: 100,
    filterTypes: ["invoice.paid"],
    channels: ["eu"],
    metadata: { team: "billing" },
  });
  await h.svix.endpoint.updateHeaders("acme", main.id, { headers: { "x-tenant": "acme" } });
  await h.svix.endpoint.rotateSecret("acme", main.id, {});
  const flaky = await h.svix.endpoint.create("acme", { url: rx.url("/flaky"), uid: "flaky" });
  const strict = await h.svix.endpoint.create("acme", {
    url: rx.url("/strict"),
    uid: "strict",
  });
  await h.svix.endpoint.create("acme", { url: rx.url("/off"), uid: "off", disabled: true });
  await h.svix.endpoint.create("globex", { url: rx.url("/later"), uid: "later" });
  await h.svix.operationalWebhookEndpoint.create({ url: rx.url("/ops"), uid: "ops" });

  // Delivered to main, failing at flaky (a retry due in 30 s), dead at strict.
  const first = await h.svix.message.create("acme", {
    eventType: "invoice.paid",
    eventId: "inv-1",
    payload: { invoice: 1 },
    channels: ["eu"],
    tags: ["t1"],
  });
  await h.waitFor(deliveryOf(first.id, "succeeded", main.id));
  await h.waitFor(deliveryOf(first.id, "dead", strict.id));
  await h.waitFor(deliveryOf(first.id, "pending", flaky.id));

  // The dead letter replayed by a bulk job once strict takes messages; then another left open.
  strictStatus = 200;
  const job = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
    endpointId: strict.id,
    canarySize: 0,
  });
  expect(job.status).toBe(202);
  await untilJob(h, job.body.id, (j) => j.state === "completed");
  strictStatus = 400;
  const second = await h.svix.message.create(
    "acme",
    { eventType: "invoice.paid", payload: { keyed: true } },
    { idempotencyKey: "keyed-1" },
  );
  await h.waitFor(deliveryOf(second.id, "dead", strict.id));

  const appToken = await h.api<{ token: string }>("POST", "/api/v1/tokens", {
    name: "acme",
    scope: "app",
    appId: "acme",
  });
  expect(appToken.status).toBe(201);
  await h.api("POST", "/api/v1/tokens", { name: "ci", scope: "admin" });
  await h.svix.authentication.appPortalAccess("acme", {});
  const secret = await h.svix.endpoint.getSecret("acme", main.id);
  return { main: main.id, mainSecret: secret.key, keyed: second.id, appToken: appToken.body.token };
}

function verify(secret: string, req: { body: Buffer; headers: Record<string, string> }): unknown {
  return new Webhook(secret).verify(req.body.toString(), {
    "webhook-id": req.headers["webhook-id"]!,
    "webhook-timestamp": req.headers["webhook-timestamp"]!,
    "webhook-signature": req.headers["webhook-signature"]!,
  });
}
