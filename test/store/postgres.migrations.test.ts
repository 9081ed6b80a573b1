import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrate } from "../../src/store/postgres/migrate.js";
import { MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { raceInChildren } from "../support/race-in-children.js";
import { anApplication } from "./behaviour/fixtures.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MIGRATE_MODULE = pathToFileURL(join(ROOT, "src/store/postgres/migrate.ts")).href;

interface LedgerRow {
  version: number;
  name: string;
  applied_at: number;
}

async function readLedger(schema: string): Promise<LedgerRow[]> {
  const rows = await adminQuery(
    `SELECT version, name, applied_at::float8 AS applied_at FROM ${schema}.hookline_migrations
    ORDER BY version`,
  );
  return rows as unknown as LedgerRow[];
}

const everyVersion = () => MIGRATIONS.map(({ version, name }) => ({ version, name }));

/** A pool of its own, as another hookline process would have. */
function aPool(): pg.Pool {
  return new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
}

describe("postgres migrations", () => {
  let schema: string;

  beforeEach(() => {
    schema = freshSchemaName();
  });

  afterEach(async () => {
    await dropSchema(schema);
  });

  it("a fresh schema is created and gets every migration once, recorded in the ledger", async () => {
    const store = await PostgresStore.open({
      connectionString: TEST_DATABASE_URL,
      schema,
      poolSize: 2,
    });
    await store.close();
    const ledger = await readLedger(schema);
    expect(ledger.map(({ version, name }) => ({ version, name }))).toEqual(everyVersion());
    const tables = await adminQuery(
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1",
      [schema],
    );
    expect(tables[0]!.n).toBeGreaterThan(10);
  });

  it("migrating again applies nothing and keeps the data", async () => {
    const options = { connectionString: TEST_DATABASE_URL, schema, poolSize: 2 };
    const first = await PostgresStore.open(options);
    const app = await first.createApplication(anApplication({ uid: "kept" }));
    await first.close();
    const before = await readLedger(schema);

    const second = await PostgresStore.open(options);
    expect(await second.findApplication("kept")).toEqual(app);
    await second.close();
    expect(await readLedger(schema)).toEqual(before);

    const pool = aPool();
    try {
      expect(await migrate(pool, schema)).toBe(0);
    } finally {
      await pool.end();
    }
    expect(await readLedger(schema)).toEqual(before);
  });

  it("a migration appended later is applied once to an existing schema", async () => {
    const pool = aPool();
    try {
      expect(await migrate(pool, schema)).toBe(MIGRATIONS.length);
      const next = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0) + 1;
      const extended = [
        ...MIGRATIONS,
        { version: next, name: "test table", sql: "CREATE TABLE t (x integer)" },
      ];
      expect(await migrate(pool, schema, extended)).toBe(1);
      expect(await migrate(pool, schema, extended)).toBe(0);
      expect((await readLedger(schema)).map((r) => r.version)).toEqual(
        extended.map((m) => m.version),
      );
      // The new table went into the schema, not wherever the connection's search_path points.
      const where = await adminQuery(
        "SELECT table_schema FROM information_schema.tables WHERE table_name = 't'",
      );
      expect(where.map((r) => r.table_schema)).toContain(schema);
    } finally {
      await pool.end();
    }
  });

  it("a schema a newer hookline migrated is refused, naming both schema versions", async () => {
    const pool = aPool();
    try {
      await migrate(pool, schema);
      const known = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);
      await adminQuery(
        `INSERT INTO ${schema}.hookline_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
        [known + 1, "from a newer hookline", Date.now()],
      );
      const refusal = new RegExp(
        `migrated by a newer hookline \\(schema version ${known + 1}; this version knows up to ${known}\\)`,
      );
      await expect(migrate(pool, schema)).rejects.toThrow(refusal);
      const store = new PostgresStore({ connectionString: TEST_DATABASE_URL, schema, poolSize: 1 });
      try {
        await expect(store.ping()).rejects.toThrow(refusal);
      } finally {
        await store.close();
      }
    } finally {
      await pool.end();
    }
  });

  it("migration 2 keeps dead letters recorded before it open, counted toward the depth cap", async () => {
    const pool = aPool();
    try {
      await migrate(
        pool,
        schema,
        MIGRATIONS.filter((m) => m.version === 1),
      );
      for (const [id, endpoint, state] of [
        ["dlq_1", "ep_1", "open"],
        ["dlq_2", "ep_1", "open"],
        ["dlq_3", "ep_1", "resolved"],
        ["dlq_4", "ep_2", "open"],
      ]) {
        await pool.query(
          `INSERT INTO ${schema}.dead_letters (id, delivery_id, app_id, endpoint_id, message_id,
            event_type, failure_class, reason, signature_headers, state, created_at)
          VALUES ($1, $2, 'app_1', $3, 'msg_1', 'x.y', 'exhausted', 'r', '{}', $4, 1000)`,
          [id, `dlv_${id}`, endpoint, state],
        );
      }
      expect(await migrate(pool, schema)).toBe(MIGRATIONS.length - 1);
      const depth = await pool.query(
        `SELECT endpoint_id, open::int AS open FROM ${schema}.dead_letter_depth
        ORDER BY endpoint_id`,
      );
      expect(depth.rows).toEqual([
        { endpoint_id: "ep_1", open: 2 },
        { endpoint_id: "ep_2", open: 1 },
      ]);
      const updated = await pool.query(
        `SELECT DISTINCT updated_at::int AS updated_at FROM ${schema}.dead_letters`,
      );
      expect(updated.rows).toEqual([{ updated_at: 1000 }]);
    } finally {
      await pool.end();
    }
  });

  it("migration 18 takes when a circuit not closed opened from its transitions, where kept", async () => {
    const pool = aPool();
    try {
      await migrate(
        pool,
        schema,
        MIGRATIONS.filter((m) => m.version <= 17),
      );
      const circuit = (id: string, state: string, since: number, reopens: number) =>
        pool.query(
          `INSERT INTO ${schema}.circuits (endpoint_id, state, since, reason, next_probe_at,
            reopen_count) VALUES ($1, $2, $3, 'r', NULL, $4)`,
          [id, state, since, reopens],
        );
      const step = (id: string, from: string, to: string, at: number) =>
        pool.query(
          `INSERT INTO ${schema}.circuit_transitions (endpoint_id, from_state, to_state, at,
            reason) VALUES ($1, $2, $3, $4, 'r')`,
          [id, from, to, at],
        );
      // Opened, closed, opened again at 1000 and reopened twice since.
      await circuit("ep_reopened", "open", 3000, 2);
      await step("ep_reopened", "closed", "open", 500);
      await step("ep_reopened", "half-open", "closed", 800);
      await step("ep_reopened", "closed", "open", 1000);
      await step("ep_reopened", "open", "open", 2000);
      await step("ep_reopened", "open", "open", 3000);
      // Half-open after opening at 1500.
      await circuit("ep_trial", "half-open", 1600, 0);
      await step("ep_trial", "closed", "open", 1500);
      await step("ep_trial", "open", "half-open", 1600);
      // Its opening pruned by retention: not known.
      await circuit("ep_pruned", "open", 4000, 5);
      await step("ep_pruned", "open", "open", 4000);
      // Closed: none.
      await circuit("ep_closed", "closed", 900, 0);
      await step("ep_closed", "closed", "open", 100);
      await step("ep_closed", "half-open", "closed", 900);
      await migrate(pool, schema);
      const read = await pool.query(
        `SELECT endpoint_id, opened_at::int AS opened_at FROM ${schema}.circuits
        ORDER BY endpoint_id`,
      );
      expect(read.rows).toEqual([
        { endpoint_id: "ep_closed", opened_at: null },
        { endpoint_id: "ep_pruned", opened_at: null },
        { endpoint_id: "ep_reopened", opened_at: 1000 },
        { endpoint_id: "ep_trial", opened_at: 1500 },
      ]);
    } finally {
      await pool.end();
    }
  });

  // Each migration that adds a column to attempts: the attempts made before it read null there.
  it.each([
    [19, "a Retry-After wait", "retry_after_ms"],
    [20, "an ignored Retry-After", "retry_after_ignored"],
  ])(
    "migration %i keeps the attempts made before it, without %s",
    async (version, _without, column) => {
      const pool = aPool();
      try {
        await migrate(
          pool,
          schema,
          MIGRATIONS.filter((m) => m.version < version),
        );
        await pool.query(
          `INSERT INTO ${schema}.attempts (id, delivery_id, app_id, message_id, endpoint_id, at,
            trigger, url, status, error, error_detail, duration_ms, response_snippet, outcome)
          VALUES ('atmpt_1', 'dlv_1', 'app_1', 'msg_1', 'ep_1', 1000, 'first', 'https://r.example',
            503, NULL, NULL, 12, 'busy', 'retryable')`,
        );
        expect(
          await migrate(
            pool,
            schema,
            MIGRATIONS.filter((m) => m.version <= version),
          ),
        ).toBe(1);
        const read = await pool.query(`SELECT id, status, ${column} FROM ${schema}.attempts`);
        expect(read.rows).toEqual([{ id: "atmpt_1", status: 503, [column]: null }]);
      } finally {
        await pool.end();
      }
    },
  );

  it("migrations raced from several pools on an empty schema are applied exactly once in total", async () => {
    const pools = [aPool(), aPool(), aPool(), aPool()];
    try {
      const applied = await Promise.all(pools.map((pool) => migrate(pool, schema)));
      expect(applied.reduce((sum, n) => sum + n, 0)).toBe(MIGRATIONS.length);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
    expect((await readLedger(schema)).map((r) => r.version)).toEqual(
      MIGRATIONS.map((m) => m.version),
    );
  });

  it("migrations raced by several processes are applied exactly once in total", async () => {
    const script = `
const { default: pg } = await import("pg");
const { migrate } = await import(${JSON.stringify(MIGRATE_MODULE)});
process.stdout.write("ready\\n");
await new Promise((resolve) => process.stdin.on("data", () => {}).once("end", resolve));
const pool = new pg.Pool({ connectionString: ${JSON.stringify(TEST_DATABASE_URL)}, max: 1 });
process.stdout.write(String(await migrate(pool, ${JSON.stringify(schema)})));
await pool.end();
`;
    const applied = await raceInChildren([script, script, script]);
    expect(applied.reduce((sum, n) => sum + Number(n), 0)).toBe(MIGRATIONS.length);
    expect((await readLedger(schema)).map((r) => r.version)).toEqual(
      MIGRATIONS.map((m) => m.version),
    );
  });
});
