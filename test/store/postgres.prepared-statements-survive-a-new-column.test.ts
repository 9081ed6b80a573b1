/**
 * The statements run per message and per delivery are prepared once per connection. A newer
 * hookline that adds a column while older processes are still running must not break them:
 * PostgreSQL refuses a prepared statement whose result would change ("cached plan must not change
 * result type"), so only statements that name their result columns are prepared.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { accept, claimAll, MINUTE, retried, seedApp, succeeded, T0 } from "./behaviour/fixtures.js";

describe("postgres prepared statements", () => {
  let schema: string;
  let store: PostgresStore;

  beforeEach(async () => {
    schema = freshSchemaName();
    // One connection, so every call below reuses the statements prepared on it.
    store = await PostgresStore.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 1 });
  });

  afterEach(async () => {
    await store.close();
    await dropSchema(schema);
  });

  /** Accepts two messages, claims them, retries one and finishes both; returns what was claimed. */
  async function deliverTwice(appId: string, at: number): Promise<number> {
    await accept(store, appId, { now: at });
    await accept(store, appId, { now: at });
    const claimed = await claimAll(store, at);
    const [first, second] = claimed;
    await store.recordAttempts([succeeded(first!, at), retried(second!, at, at + MINUTE)]);
    expect(await store.nextDueAt([], at)).toBe(at + MINUTE);
    const again = await claimAll(store, at + MINUTE);
    await store.releaseDeliveries(again.map((d) => ({ deliveryId: d.id, at: at + MINUTE })));
    const last = await claimAll(store, at + MINUTE);
    await store.recordAttempts(last.map((d) => succeeded(d, at + MINUTE)));
    return claimed.length + last.length;
  }

  it("keep working after a migration adds columns to the tables they read and write", async () => {
    const { app } = await seedApp(store);
    expect(await deliverTwice(app.id, T0)).toBe(3);
    const tables = [
      "messages",
      "deliveries",
      "attempts",
      "endpoints",
      "circuits",
      "endpoint_stats",
    ];
    for (const table of tables) {
      await adminQuery(`ALTER TABLE ${schema}.${table} ADD COLUMN added_later TEXT`);
    }
    expect(await deliverTwice(app.id, T0 + 10 * MINUTE)).toBe(3);
  });
});
