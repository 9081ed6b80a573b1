/**
 * The dead-letter depth (open and replaying records per endpoint, which the depth cap reads) is
 * kept by a trigger on dead_letters. Rows change from sessions that are not hookline's own too:
 * an operator's psql on the default search_path, a restore, or a second hookline whose schema is
 * in the same database. Whatever such a session's search_path, the count kept is the one beside
 * the table changed, and the change goes through.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrate } from "../../src/store/postgres/migrate.js";
import { MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { useCleanup, type Cleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";

const cleanup = useCleanup();

/** A schema migrated with `migrations`, dropped by `cleanup`. */
async function aSchema(cleanup: Cleanup, migrations = MIGRATIONS): Promise<string> {
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  try {
    await migrate(pool, schema, migrations);
  } finally {
    await pool.end();
  }
  return schema;
}

/** A session of its own whose search_path is `path` (the server's default when undefined). */
async function aSession(cleanup: Cleanup, path?: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: TEST_DATABASE_URL,
    ...(path === undefined ? {} : { options: `-c search_path=${path}` }),
  });
  await client.connect();
  cleanup.push(() => client.end());
  return client;
}

async function addDeadLetter(
  session: pg.Client,
  schema: string,
  id: string,
  endpoint = "ep_1",
): Promise<void> {
  await session.query(
    `INSERT INTO ${schema}.dead_letters (id, delivery_id, app_id, endpoint_id, message_id,
      event_type, failure_class, reason, signature_headers, created_at, updated_at)
    VALUES ($1, $2, 'app_1', $3, 'msg_1', 'x.y', 'exhausted', 'r', '{}', 1000, 1000)`,
    [id, `dlv_${id}`, endpoint],
  );
}

/** Each endpoint's count in `schema`'s depth table, read through the given session. */
async function depth(session: pg.Client, schema: string): Promise<Record<string, number>> {
  const { rows } = await session.query<{ endpoint_id: string; open: string }>(
    `SELECT endpoint_id, open::text AS open FROM ${schema}.dead_letter_depth ORDER BY endpoint_id`,
  );
  return Object.fromEntries(rows.map((r) => [r.endpoint_id, Number(r.open)]));
}

describe("the dead-letter depth on PostgreSQL", () => {
  it("is kept by a session on the server's default search_path, which has no hookline tables", async () => {
    const schema = await aSchema(cleanup);
    const psql = await aSession(cleanup);

    await addDeadLetter(psql, schema, "dlq_1");
    await addDeadLetter(psql, schema, "dlq_2");
    await addDeadLetter(psql, schema, "dlq_3", "ep_2");
    expect(await depth(psql, schema)).toEqual({ ep_1: 2, ep_2: 1 });

    await psql.query(`UPDATE ${schema}.dead_letters SET state = 'resolved' WHERE id = 'dlq_1'`);
    await psql.query(`DELETE FROM ${schema}.dead_letters WHERE id = 'dlq_3'`);
    expect(await depth(psql, schema)).toEqual({ ep_1: 1, ep_2: 0 });
  });

  it("is kept in the changed table's own schema, not in another hookline's on the session's path", async () => {
    const schema = await aSchema(cleanup);
    const neighbour = await aSchema(cleanup);
    const session = await aSession(cleanup, neighbour);

    await addDeadLetter(session, schema, "dlq_1");
    await addDeadLetter(session, neighbour, "dlq_2");
    expect(await depth(session, schema)).toEqual({ ep_1: 1 });
    expect(await depth(session, neighbour)).toEqual({ ep_1: 1 });

    await session.query(`DELETE FROM ${schema}.dead_letters`);
    expect(await depth(session, schema)).toEqual({ ep_1: 0 });
    expect(await depth(session, neighbour)).toEqual({ ep_1: 1 });
  });

  it("is not taken in by a session's temporary table of the same name", async () => {
    const schema = await aSchema(cleanup);
    const session = await aSession(cleanup, schema);
    await session.query(
      "CREATE TEMP TABLE dead_letter_depth (endpoint_id TEXT PRIMARY KEY, open BIGINT NOT NULL)",
    );

    await addDeadLetter(session, schema, "dlq_1");
    expect(await depth(session, schema)).toEqual({ ep_1: 1 });
    expect((await session.query("SELECT * FROM pg_temp.dead_letter_depth")).rows).toEqual([]);
  });

  it("is kept from outside the schema once a schema migrated by an earlier hookline is upgraded", async () => {
    const schema = await aSchema(
      cleanup,
      MIGRATIONS.filter((m) => m.version < 15),
    );
    // Written by that hookline, on its schema's path as its connections were.
    const hookline = await aSession(cleanup, schema);
    await addDeadLetter(hookline, schema, "dlq_1");
    await addDeadLetter(hookline, schema, "dlq_2");

    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
    try {
      expect(await migrate(pool, schema)).toBe(MIGRATIONS.filter((m) => m.version >= 15).length);
    } finally {
      await pool.end();
    }

    const psql = await aSession(cleanup);
    expect(await depth(psql, schema)).toEqual({ ep_1: 2 });
    await psql.query(`UPDATE ${schema}.dead_letters SET state = 'abandoned' WHERE id = 'dlq_1'`);
    await addDeadLetter(psql, schema, "dlq_3");
    expect(await depth(psql, schema)).toEqual({ ep_1: 2 });
  });
});
