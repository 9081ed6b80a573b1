/**
 * The PostgreSQL schema a copy writes: checked to hold no hookline data, migrated to this version,
 * then written in one transaction on one connection, so a copy that fails at any point (a row
 * refused, the connection lost, the command killed) leaves nothing of itself there.
 */
import type pg from "pg";
import { ConfigError } from "../../errors.js";
import { newClient, openPool } from "../postgres/connections.js";
import {
  DEFAULT_QUERY_TIMEOUT_MS,
  endedIdle,
  isTimeout,
  hearSessionEnd,
  type PostgresOptions,
} from "../postgres/database.js";
import {
  ENCODING_COLUMNS,
  narrowEncodingError,
  type DatabaseEncoding,
} from "../postgres/encoding.js";
import { migrate } from "../postgres/migrate.js";
import { COPIED, DESTINATION_ONLY, type CopiedTable } from "./plan.js";

/** What a copy needs of the destination: where it is, and how long one statement may wait. */
export type DestinationOptions = Pick<
  PostgresOptions,
  "connectionString" | "schema" | "queryTimeoutMs"
>;

/** Column name to information_schema's data_type. */
export type ColumnTypes = ReadonlyMap<string, string>;

/** What the copy finds at the destination before it writes anything. */
export interface DestinationState {
  exists: boolean;
  /** The newest migration its ledger records; null with no ledger (or no schema). */
  version: number | null;
  /** The role the copy connects as, and whether it may look into the schema and make its tables. */
  rights: { role: string; database: string; usage: boolean; make: boolean };
  /** The database's encoding (PostgreSQL's name for it: UTF8, LATIN1…). */
  encoding: string;
}

/** One PostgreSQL schema being written by a copy. */
export class PostgresDestination {
  private inTransaction = false;
  private broken: Error | undefined;

  private constructor(
    private readonly client: pg.Client,
    private readonly options: DestinationOptions,
  ) {}

  static async connect(options: DestinationOptions): Promise<PostgresDestination> {
    const client = newClient(connectionOptions(options));
    // A connection lost fails the next statement instead, which says why if the server ended
    // the session for idling in the copy's transaction (see failed in sqlite-to-postgres.ts).
    hearSessionEnd(client);
    await client.connect();
    return new PostgresDestination(client, options);
  }

  get schema(): string {
    return this.options.schema;
  }

  /** How long the server lets the copy's transaction stand idle before it ends the session. */
  get idleTimeoutMs(): number {
    return idleTimeoutOf(this.options);
  }

  /**
   * What already holds hookline data there: the copied tables that have rows, and processes that
   * have beaten within `liveAfter` (a hookline running on the schema). An empty schema a hookline
   * made and left (its tables, a stopped worker's row) holds nothing.
   */
  async occupied(liveAfter: number): Promise<string[]> {
    const found: string[] = [];
    for (const t of [...COPIED.map((c) => c.name), "dead_letter_depth"]) {
      if (!(await this.exists(t))) continue;
      const { rows } = await this.q(`SELECT count(*)::int AS n FROM ${this.schema}.${t}`);
      const n = (rows[0] as { n: number }).n;
      if (n > 0) found.push(`${t} (${n} rows)`);
    }
    if (await this.exists("workers")) {
      const { rows } = await this.q(
        `SELECT id FROM ${this.schema}.workers WHERE heartbeat_at >= $1 ORDER BY id`,
        [liveAfter],
      );
      for (const r of rows as { id: string }[]) found.push(`a running hookline (worker ${r.id})`);
    }
    return found;
  }

  /**
   * Whether the schema is there, the role's rights on it, and the newest migration its ledger
   * records: read only, as a dry run reads it, and before migrating, so that what migrating would
   * refuse is refused before anything is written.
   */
  async state(): Promise<DestinationState> {
    const { rows } = await this.q("SELECT 1 FROM pg_namespace WHERE nspname = $1", [this.schema]);
    const exists = rows.length > 0;
    // Only the rights PostgreSQL checks whatever the schema holds: CREATE on the database to make
    // it (only when missing, as migrate makes it then only), else USAGE to look into it and
    // CREATE to make its ledger (IF NOT EXISTS is checked for CREATE all the same).
    const asked = exists
      ? "has_schema_privilege($1, 'USAGE') AS usage, has_schema_privilege($1, 'CREATE') AS make"
      : "true AS usage, has_database_privilege(current_database(), 'CREATE') AS make";
    const granted = await this.q(
      `SELECT current_user AS role, ${ENCODING_COLUMNS}, ${asked}`,
      exists ? [this.schema] : [],
    );
    const { encoding, ...rights } = granted.rows[0] as DestinationState["rights"] &
      DatabaseEncoding;
    if (!exists || !rights.usage || !(await this.exists("hookline_migrations"))) {
      return { exists, version: null, rights, encoding };
    }
    const ledger = await this.q(`SELECT max(version) AS v FROM ${this.schema}.hookline_migrations`);
    return { exists, version: (ledger.rows[0] as { v: number | null }).v, rights, encoding };
  }

  /** Brings the schema to this hookline's version (making it if missing), as `serve` would. */
  async migrate(): Promise<void> {
    const pool = openPool(connectionOptions(this.options));
    try {
      await migrate(pool, this.schema);
    } finally {
      await pool.end();
    }
  }

  /**
   * Begins the copy's transaction, and locks the copied tables against writes (reads go on) until
   * it ends: a hookline started on the schema meanwhile waits rather than writing among the copy.
   */
  async begin(): Promise<void> {
    await this.q("BEGIN");
    this.inTransaction = true;
    const tables = [...COPIED.map((t) => t.name), "dead_letter_depth"].join(", ");
    await this.q(`LOCK TABLE ${tables} IN EXCLUSIVE MODE`);
  }

  /** The destination's columns of `table`, but those only PostgreSQL has (see DESTINATION_ONLY). */
  async columnTypes(table: string): Promise<ColumnTypes> {
    const { rows } = await this.q(
      `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_schema = $1 AND table_name = $2`,
      [this.schema, table],
    );
    const own = DESTINATION_ONLY.columns[table] ?? [];
    return new Map(
      (rows as { column_name: string; data_type: string }[])
        .filter((r) => !own.includes(r.column_name))
        .map((r) => [r.column_name, r.data_type]),
    );
  }

  /** Writes one batch of rows, each a list of values in `columns` order. */
  async insert(table: CopiedTable, columns: readonly string[], rows: unknown[][]): Promise<void> {
    const values: unknown[] = [];
    const tuples = rows.map((row) => {
      const marks = row.map((v) => {
        values.push(v);
        return `$${values.length}`;
      });
      return `(${marks.join(", ")})`;
    });
    const names = columns.map((c) => `"${c}"`).join(", ");
    // An identity column is GENERATED ALWAYS: the copied value is kept only when asked to be.
    const overriding = table.identity ? " OVERRIDING SYSTEM VALUE" : "";
    await this.q(
      `INSERT INTO ${table.name} (${names})${overriding} VALUES ${tuples.join(", ")}`,
      values,
    );
  }

  /** Moves `table`'s identity sequence past `atLeast` and every copied value. */
  async moveIdentityPast(table: CopiedTable, atLeast: number): Promise<void> {
    const column = table.identity!;
    await this.q(
      `SELECT setval(pg_get_serial_sequence($1, $2), v, true)
       FROM (SELECT greatest($3::bigint, (SELECT max(${column}) FROM ${table.name})) AS v) s
       WHERE v > 0`,
      [`${this.schema}.${table.name}`, column, atLeast],
    );
  }

  async count(table: string): Promise<number> {
    const { rows } = await this.q(`SELECT count(*)::bigint AS n FROM ${table}`);
    return (rows[0] as { n: number }).n;
  }

  /** Open and replaying dead letters per endpoint, as the destination's triggers counted them. */
  async depth(): Promise<Map<string, number>> {
    const { rows } = await this.q(
      "SELECT endpoint_id, open FROM dead_letter_depth WHERE open <> 0",
    );
    return new Map(
      (rows as { endpoint_id: string; open: number }[]).map((r) => [r.endpoint_id, r.open]),
    );
  }

  async commit(): Promise<void> {
    await this.q("COMMIT");
    this.inTransaction = false;
  }

  /**
   * Gathers the planner's statistics of every copied table. Written in one go, they would
   * otherwise read as empty until autovacuum came round to each (a minute or more), and the
   * first claims and lists on the copy would be planned as for empty tables. After the commit:
   * the copy stands whether or not this ends well, and autovacuum does it later if not.
   */
  async analyze(): Promise<void> {
    for (const t of COPIED) await this.q(`ANALYZE ${this.schema}.${t.name}`);
  }

  /**
   * Ends the connection; a transaction still open is rolled back first. When the connection is
   * broken or a statement went unanswered, it is closed instead, and the server rolls back as it
   * sees the connection go.
   */
  async close(): Promise<void> {
    if (this.inTransaction && !this.broken) {
      await this.q("ROLLBACK").catch(() => undefined);
    }
    await this.client.end().catch(() => undefined);
  }

  private async exists(table: string): Promise<boolean> {
    const { rows } = await this.q("SELECT to_regclass($1) IS NOT NULL AS e", [
      `${this.schema}.${table}`,
    ]);
    return (rows[0] as { e: boolean }).e;
  }

  private async q(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    try {
      return await this.client.query({ text, values });
    } catch (err) {
      // Unanswered, the statement may still run: a ROLLBACK would only queue behind it.
      if (isTimeout(err)) this.broken = err as Error;
      throw await endedIdle(this.client, err);
    }
  }
}

/**
 * One connection, whose transaction the server ends once left idle past the query timeout. The
 * copy's transaction holds every table of the schema locked, and its migrations the schema's
 * migration lock: a copy whose process hung or whose machine went down mid-copy would otherwise
 * hold them until the server's TCP keep-alive gave up on it (hours), and a copy run again, or a
 * hookline started on the schema, would wait on them as long. The copy itself is never idle that
 * long between two statements: it reads one batch from SQLite, a walk in key order that stops
 * at the batch's rows or bytes. What may take long on a large store, counting its rows, it does
 * before its transaction begins.
 */
function connectionOptions(options: DestinationOptions): PostgresOptions {
  return { ...options, poolSize: 1, idleInTransactionTimeoutMs: idleTimeoutOf(options) };
}

/** The copy's idle-in-transaction timeout: the query timeout (see connectionOptions). */
function idleTimeoutOf(options: DestinationOptions): number {
  return options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
}

/**
 * Refuses a database that cannot hold every character hookline accepts (see encoding.ts): the copy
 * would fail at the first row it cannot hold, or leave a copy no hookline starts on.
 */
export function refuseNarrowEncoding({ rights, encoding }: DestinationState): void {
  const refusal = narrowEncodingError(
    { database: rights.database, encoding },
    "--to",
    "copy into that one; nothing was written",
  );
  if (refusal) throw refusal;
}

/**
 * Refuses a role that could not make the schema, or look into it and make its tables, as
 * migrating would fail on it: a dry run does not migrate, and the refusal says what to grant.
 */
export function refuseWithoutRights(schema: string, state: DestinationState): void {
  const { role, database, usage, make } = state.rights;
  if (!state.exists && !make) {
    throw new ConfigError(
      `the PostgreSQL role ${role} cannot make the schema "${schema}": it has no CREATE on the database ${database}. Make the schema for it (CREATE SCHEMA ${schema} AUTHORIZATION ${role}) or grant it CREATE on the database; nothing was written`,
    );
  }
  const lacking = [...(usage ? [] : ["USAGE"]), ...(make ? [] : ["CREATE"])];
  if (state.exists && lacking.length > 0) {
    throw new ConfigError(
      `the PostgreSQL role ${role} cannot make hookline's tables in the schema "${schema}": it has no ${lacking.join(" or ")} on it. Give it the schema (ALTER SCHEMA ${schema} OWNER TO ${role}) or name another with --schema; nothing was written`,
    );
  }
}

/**
 * The refusal of a schema that holds hookline data already: nothing is merged. A hookline started
 * on a schema registers its admin token there at once, so a schema only tried out holds one: said
 * so, as that is the likely reason for the one token found.
 */
export function occupiedError(schema: string, found: readonly string[]): ConfigError {
  const tried =
    found.length === 1 && found[0]!.startsWith("api_tokens")
      ? " (a hookline started on a schema registers its admin token there: was one started on it?)"
      : "";
  return new ConfigError(
    `the PostgreSQL schema "${schema}" already holds hookline data: ${found.join(", ")}${tried}; the copy writes only into a schema without any (it never merges), and wrote nothing. Name another with --schema, or drop this one (DROP SCHEMA ${schema} CASCADE) if nothing in it is to be kept`,
  );
}
