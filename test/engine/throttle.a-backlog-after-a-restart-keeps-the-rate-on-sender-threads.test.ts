/**
 * A rate-limited endpoint's backlog met as hookline starts (a restart, a new worker), sent through
 * a sender thread. The engine paces requests on the main thread and hands each to a thread as its
 * turn comes; it used to start before the thread had loaded, which kept what it was handed in its
 * inbox and sent it all at once when it was up: at 10 a second, the receiver saw 13 within one
 * second. Counted at the receiver: no second holds more than the rate and the one burst token a
 * bucket starts with, and each message comes once.
 */
import { afterEach, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const RATE = 10;

const schema = freshSchemaName();
let t: TestHookline | null = null;
let rx: Receiver | null = null;
afterEach(async () => {
  await t?.stop();
  await rx?.close();
  await dropSchema(schema);
});

/** The most requests received within any one second. */
function busiestSecond(at: number[]): number {
  const s = [...at].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < s.length; i++) {
    while (s[i]! - s[j]! >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

it("a hookline started on a rate-limited backlog sends it at the rate, not in a burst", async () => {
  const store = { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema };
  rx = await Receiver.start();
  // The backlog: messages taken by an API-only process, which sends nothing.
  t = await startHookline({ env: { ...store, HOOKLINE_ROLE: "api" } });
  const app = await t.svix.application.create({ name: "paced" });
  await t.svix.endpoint.create(app.id, { url: rx.url("/in"), rateLimit: RATE });
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    ids.push((await t.svix.message.create(app.id, { eventType: "e", payload: { i } })).id);
  }
  await t.stop();
  t = null;

  t = await startHookline({ env: { ...store, HOOKLINE_SENDER_THREADS: "1" } });
  for (const id of ids) {
    await t.waitFor(
      (e) => e.type === "delivery" && e.messageId === id && e.state === "succeeded",
      20_000,
    );
  }
  expect(busiestSecond(rx.requests.map((r) => r.at))).toBeLessThanOrEqual(RATE + 1);
  // Each message once.
  expect(rx.requests).toHaveLength(30);
  expect(new Set(rx.requests.map((r) => r.headers["webhook-id"])).size).toBe(30);
}, 60_000);
