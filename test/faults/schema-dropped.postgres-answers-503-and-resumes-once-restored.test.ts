/**
 * hookline's PostgreSQL schema is dropped under a running hookline (a restore begun without
 * stopping it first, which the runbook warns against). Every statement then fails for a table
 * that does not exist: that is the store being unusable, answered 503 with Retry-After, and the
 * readiness probe says so; before, callers got 500 "internal error", as for a bug in hookline,
 * and the probe kept answering ready, so a load balancer kept sending traffic. Once the schema is
 * back (restored), hookline carries on without a restart.
 */
import { afterEach, expect, it } from "vitest";
import { registerBootstrapToken } from "../../src/api/auth.js";
import { systemClock } from "../../src/clock.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline | undefined;
const rx = await Receiver.start(() => ({ status: 200 }));
const schema = freshSchemaName();

afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await rx.close();
  await dropSchema(schema);
});

it("answers 503 and is not ready while its schema is gone, and resumes once it is back", async () => {
  h = await startHookline({ env: { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema } });
  const app = await h.svix.application.create({ name: "shop" });
  await dropSchema(schema);

  const post = () =>
    fetch(`${h!.url}/api/v1/app/${app.id}/msg`, {
      method: "POST",
      headers: { authorization: `Bearer ${h!.token}`, "content-type": "application/json" },
      body: JSON.stringify({ eventType: "a.b", payload: { n: 1 } }),
    });
  const refused = await post();
  expect(refused.status).toBe(503);
  expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(await refused.json()).toMatchObject({ code: "store_unavailable" });
  expect((await h.api("GET", "/api/v1/app")).status).toBe(503);
  expect((await h.api("GET", "/api/v1/health/ready")).status).toBe(503);

  // Restored (here: made again, holding only the admin token, as a backup taken at once would).
  const restored = await PostgresStore.open({
    connectionString: TEST_DATABASE_URL,
    schema,
    poolSize: 1,
  });
  await registerBootstrapToken(restored, h.token, systemClock);
  await restored.close();
  expect((await h.api("GET", "/api/v1/health/ready")).status).toBe(200);
  const again = await h.svix.application.create({ name: "shop again" });
  await h.svix.endpoint.create(again.id, { url: rx.url() });
  const msg = await h.svix.message.create(again.id, { eventType: "a.b", payload: { n: 2 } });
  await h.waitFor(deliveryOf(msg.id, "succeeded"), 30_000);
});
