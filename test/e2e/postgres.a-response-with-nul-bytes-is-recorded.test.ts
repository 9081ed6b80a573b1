/**
 * What a receiver answers is not hookline's to trust: a response body with NUL bytes (which a
 * PostgreSQL text column cannot hold) is recorded like any other answer, and the attempts of
 * other endpoints keep being recorded alongside it.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

let schema: string;
let t: TestHookline;
let rx: Receiver;
beforeEach(async () => {
  schema = freshSchemaName();
  t = await startHookline({ env: { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema } });
  rx = await Receiver.start((req) =>
    req.path === "/nul" ? { status: 200, body: "ok\u0000then more" } : { status: 200, body: "ok" },
  );
});
afterEach(async () => {
  await t.stop();
  await rx.close();
  await dropSchema(schema);
});

it("records an answer holding NUL bytes, and other endpoints' answers beside it", async () => {
  const app = await t.svix.application.create({ name: "nul" });
  const bad = await t.svix.endpoint.create(app.id, { url: rx.url("/nul") });
  const good = await t.svix.endpoint.create(app.id, { url: rx.url("/fine") });
  const msg = await t.svix.message.create(app.id, { eventType: "e", payload: { a: 1 } });

  await t.waitFor(deliveryOf(msg.id, "succeeded", good.id), 10_000);
  await t.waitFor(deliveryOf(msg.id, "succeeded", bad.id), 10_000);
  const attempts = await t.svix.messageAttempt.listByEndpoint(app.id, bad.id);
  expect(attempts.data).toHaveLength(1);
  expect(attempts.data[0]!.response).toMatch(/^ok.then more$/);
});
