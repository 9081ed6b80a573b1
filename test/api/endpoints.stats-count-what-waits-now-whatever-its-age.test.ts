/**
 * An endpoint's stats count the messages of a window (by default the last day), so messages older
 * than that which still wait (a long outage, a retry days away, a far `deliverAt`) were counted
 * nowhere: the endpoint page said "Waiting 0" while they waited. hookline's `pendingNow` counts
 * the endpoint's deliveries waiting now whatever their age, up to a bound it names and says it reached
 * (the dashboard said "up to 10,000" from a number of its own); a Svix client reads the stats as
 * before.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PENDING_NOW_BOUND } from "../../src/api/routes/endpoints.js";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

const HOUR = 3_600_000;
const START = Date.UTC(2026, 0, 1, 10, 0);
const clock = new FakeClock(START);
let h: TestHookline;

beforeAll(async () => {
  h = await startHookline({ overrides: { clock } });
});
afterAll(async () => {
  await h.stop();
});

interface Stats {
  pending: number;
  pendingNow: { count: number; orMore: boolean; upTo: number };
}

it("counts the deliveries waiting now, whatever their age, up to a bound it names", async () => {
  const app = await h.svix.application.create({ name: "Waiting" });
  // Nothing listens there, and nothing is due before the clock is moved again.
  const ep = await h.svix.endpoint.create(app.id, { url: "http://127.0.0.1:9/waits" });
  const later = new Date(START + 7 * 24 * HOUR);
  for (let i = 0; i < 3; i++) {
    await h.svix.message.create(app.id, { eventType: "a", payload: {}, deliverAt: later });
  }
  clock.advance(25 * HOUR);
  const path = `/api/v1/app/${app.id}/endpoint/${ep.id}/stats`;
  const res = await h.api<Stats>("GET", path);
  expect(res.status).toBe(200);
  // The window's count leaves them out; the count of now has them.
  expect(res.body.pending).toBe(0);
  // It names where it stops counting: the dashboard says so from the answer.
  expect(res.body.pendingNow).toEqual({ count: 3, orMore: false, upTo: PENDING_NOW_BOUND });
  // The Svix client reads the stats it knows, the extension field left aside.
  expect(await h.svix.endpoint.getStats(app.id, ep.id)).toMatchObject({ pending: 0, success: 0 });

  // A backlog past the bound, written straight to the store: counted up to the bound, said so.
  const db = new Database(join(h.dataDir, "hookline.db"));
  const { message_id: msg } = db
    .prepare("SELECT message_id FROM deliveries WHERE endpoint_id = ?")
    .get(ep.id) as { message_id: string };
  const insert = db.prepare(
    `INSERT INTO deliveries (id, app_id, message_id, endpoint_id, state, origin, next_attempt_at,
       created_at) VALUES (?, ?, ?, ?, 'pending', 'message', ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < PENDING_NOW_BOUND; i++) {
      insert.run(
        `dlv_backlog${String(i).padStart(6, "0")}`,
        app.id,
        msg,
        ep.id,
        later.getTime(),
        START,
      );
    }
  })();
  db.close();
  expect((await h.api<Stats>("GET", path)).body.pendingNow).toEqual({
    count: PENDING_NOW_BOUND,
    orMore: true,
    upTo: PENDING_NOW_BOUND,
  });
});

it("describes pendingNow as hookline's own in the OpenAPI document", async () => {
  type Schema = { properties: Record<string, Record<string, unknown>>; required: string[] };
  const doc = await h.api<{
    paths: Record<string, { get: { responses: Record<string, { content: unknown }> } }>;
  }>("GET", "/api/v1/openapi.json");
  const answer = doc.body.paths["/api/v1/app/{app_id}/endpoint/{endpoint_id}/stats"]!.get;
  const schema = (answer.responses["200"]!.content as Record<string, { schema: Schema }>)[
    "application/json"
  ]!.schema;
  expect(schema.properties.pendingNow).toMatchObject({ "x-hookline-extension": true });
  expect(String(schema.properties.pendingNow!.description)).toMatch(/whatever/);
  expect(schema.properties.pending!["x-hookline-extension"]).toBeUndefined();
});
