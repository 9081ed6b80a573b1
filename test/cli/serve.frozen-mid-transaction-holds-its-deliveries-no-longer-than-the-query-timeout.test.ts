/**
 * A `hookline serve` on PostgreSQL frozen inside a transaction (its process stopped, its VM
 * paused, its machine gone without closing the connection) holds what the transaction locked for
 * as long as the server believes the connection open: until TCP keep-alive gives up on it, hours
 * later. Frozen as it recorded an answer, it held the delivery's row, and taking over a dead
 * worker's deliveries waits on that row: a worker started meanwhile failed its start after the
 * query timeout (`Query read timeout`), one already running failed to take over at every
 * heartbeat, and the delivery was sent by nobody. The server now ends a transaction of serve's
 * left idle longer than HOOKLINE_PG_QUERY_TIMEOUT_MS, and another worker sends the delivery. The
 * frozen one, once continued, finds it was declared dead, drops what it held and works on under a
 * new identity, its stale answer recorded nowhere.
 */
import pg from "pg";
import { expect, it } from "vitest";
import { freezeBehindLock } from "../support/built-cli.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { call, postOneMessage, runHookline, spawnHookline, stopAfter } from "../support/process.js";
import { Receiver } from "../support/receiver.js";

const cleanup = useCleanup();

it("another worker sends the delivery once the server has ended the frozen one's transaction", async () => {
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  // Given the admin token, hookline keeps nothing in its data dir on PostgreSQL: both share one.
  const dataDir = tempDir(cleanup, "hookline-frozen-");
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  // The first request is answered 410 Gone, when the test says: recording that (the endpoint
  // disabled) is a transaction. Any later one is answered 200.
  const rx = await Receiver.start((_req, i) =>
    i === 0 ? { status: 410, until: answered } : { status: 200 },
  );
  cleanup.push(() => rx.close());
  const env = {
    DATABASE_URL: TEST_DATABASE_URL,
    HOOKLINE_PG_SCHEMA: schema,
    HOOKLINE_PG_QUERY_TIMEOUT_MS: "3000",
    // Short, so declaring the frozen worker dead fits in a test.
    HOOKLINE_WORKER_HEARTBEAT_MS: "200",
    HOOKLINE_WORKER_DEAD_AFTER_MS: "1500",
  };
  const frozen = stopAfter(cleanup, await spawnHookline(dataDir, env), "SIGKILL");
  const messageId = await postOneMessage(frozen.url, rx.url("/gone"));
  await rx.waitFor(1);
  const [delivery] = await adminQuery(`SELECT id FROM ${schema}.deliveries WHERE message_id = $1`, [
    messageId,
  ]);
  const deliveryId = String(delivery!.id);

  // The test holds the delivery's row: the frozen one's transaction recording the answer waits
  // for it, and is frozen there, holding the row once the test lets go.
  const holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await holder.connect();
  cleanup.push(() => holder.end());
  await holder.query("BEGIN");
  await holder.query(`SELECT 1 FROM ${schema}.deliveries WHERE id = $1 FOR UPDATE`, [deliveryId]);
  answer();
  await freezeBehindLock(frozen, schema, () => holder.query("ROLLBACK"));

  await runHookline(cleanup, dataDir, env);
  await rx.waitFor(2, undefined, 30_000);
  const state = async () =>
    (await adminQuery(`SELECT state FROM ${schema}.deliveries WHERE id = $1`, [deliveryId]))[0]!
      .state;
  await expect.poll(state).toBe("succeeded");

  frozen.child.kill("SIGCONT");
  await expect
    .poll(() => frozen.output())
    .toContain("this worker was declared dead by the others; dropping its work and joining again");
  // Recording the answer it held failed, and its log says why.
  await expect
    .poll(() => frozen.out())
    .toContain(
      "PostgreSQL store unavailable (25P03: the server ended a transaction of this process's left idle past HOOKLINE_PG_QUERY_TIMEOUT_MS",
    );
  // It works on: it takes a message, which is delivered.
  const res = await call(frozen.url, "POST", "/api/v1/app/acme/msg", {
    eventType: "e",
    payload: {},
  });
  expect(res.status).toBe(202);
  await rx.waitFor(3, undefined, 30_000);
  const attempts = await adminQuery(
    `SELECT status FROM ${schema}.attempts WHERE delivery_id = $1`,
    [deliveryId],
  );
  expect(attempts.map((a) => Number(a.status))).toEqual([200]);
  const [endpoint] = await adminQuery(`SELECT disabled FROM ${schema}.endpoints`);
  expect(endpoint!.disabled).toBe(false);
}, 90_000);
