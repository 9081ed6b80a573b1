/**
 * The statements run per message and per delivery are prepared once per connection. A newer
 * hookline that adds a column while older processes are still running must not break them:
 * PostgreSQL refuses a prepared statement whose result would change ("cached plan must not change
 * result type"), so only statements that name their result columns are prepared. And a pooler
 * that cannot carry prepared statements between server connections needs them off.
 */
import type pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { accept, claimAll, MINUTE, retried, seedApp, succeeded, T0 } from "./behaviour/fixtures.js";

describe("postgres prepared statements", () => {
  let schema: string;
  let store: PostgresStore;

  // One connection, so every call reuses the statements prepared on it.
  const open = (preparedStatements?: boolean) =>
    PostgresStore.open({
      connectionString: TEST_DATABASE_URL,
      schema,
      poolSize: 1,
      preparedStatements,
    });

  /** The statements prepared on the store's one connection (a session's own view). */
  async function preparedOnItsConnection(): Promise<string[]> {
    const { pool } = store as unknown as { pool: pg.Pool };
    const { rows } = await pool.query<{ name: string }>(
      "SELECT name FROM pg_prepared_statements ORDER BY name",
    );
    return rows.map((r) => r.name);
  }

  beforeEach(async () => {
    schema = freshSchemaName();
    store = await open();
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

  it("are prepared by default, and can be sent as text instead", async () => {
    const { app } = await seedApp(store);
    await deliverTwice(app.id, T0);
    expect(await preparedOnItsConnection()).toEqual(
      expect.arrayContaining(["hookline_claim", "hookline_recordPlain", "hookline_insertMessage"]),
    );

    await store.close();
    store = await open(false);
    expect(await deliverTwice(app.id, T0 + 10 * MINUTE)).toBe(3);
    expect(await preparedOnItsConnection()).toEqual([]);
  });
});
