/**
 * The statements a store runs, recorded so that tests can ask each database how it would read
 * them (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN).
 */
import Database, { type Statement } from "better-sqlite3";
import pg from "pg";
import { vi } from "vitest";
import type { Cleanup } from "../support/cleanup.js";
import { TEST_DATABASE_URL } from "../support/postgres.js";

/** Records the text of every SQLite statement run (whenever it was prepared) until `stop`. */
export function runStatementsRecorded(cleanup: Cleanup): { sources: Set<string>; stop(): void } {
  const sources = new Set<string>();
  const memory = new Database(":memory:");
  // Every statement shares one prototype; its methods run it.
  const proto = Object.getPrototypeOf(memory.prepare("SELECT 1")) as Statement;
  memory.close();
  const spies = (["run", "get", "all", "iterate"] as const).map((name) => {
    const original = proto[name] as (...args: unknown[]) => unknown;
    return vi.spyOn(proto, name).mockImplementation(function (this: Statement, ...args: unknown[]) {
      sources.add(this.source);
      return original.apply(this, args);
    } as never);
  });
  const stop = () => spies.forEach((spy) => spy.mockRestore());
  cleanup.push(async () => stop());
  return { sources, stop };
}

/** The steps of SQLite's plan for `sql`, asked with a null for each placeholder. */
export function sqlitePlan(db: Database.Database, sql: string): string[] {
  // A plan needs no values, but a statement wants one for each placeholder, named or not.
  const named = [...sql.matchAll(/@(\w+)/g)].map((m) => [m[1]!, null]);
  const values = named.length
    ? [Object.fromEntries(named)]
    : Array<null>((sql.match(/\?/g) ?? []).length).fill(null);
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values);
  return (plan as { detail: string }[]).map((p) => p.detail);
}

/** Records the text and values of every statement sent to PostgreSQL until `stop`. */
export function sentStatementsRecorded(cleanup: Cleanup): {
  statements: Map<string, unknown[]>;
  stop(): void;
} {
  const statements = new Map<string, unknown[]>();
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const [first, second] = args;
    const config = typeof first === "string" ? { text: first, values: second } : first;
    const { text, values } = config as { text?: string; values?: unknown[] };
    if (text) statements.set(text, Array.isArray(values) ? values : []);
    return query.apply(this, args);
  } as never);
  const stop = () => spy.mockRestore();
  cleanup.push(async () => stop());
  return { statements, stop };
}

/** A node of PostgreSQL's plan, as EXPLAIN (FORMAT JSON) gives it. */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  Plans?: PlanNode[];
}

/** PostgreSQL's plan of `text` with `values`, its nodes in depth-first order. */
export async function postgresPlan(
  client: pg.Client,
  text: string,
  values: unknown[],
): Promise<PlanNode[]> {
  const { rows } = await client.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
    `EXPLAIN (FORMAT JSON) ${text}`,
    values,
  );
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    nodes.push(node);
    (node.Plans ?? []).forEach(walk);
  };
  walk(rows[0]!["QUERY PLAN"][0]!.Plan);
  return nodes;
}

/**
 * A connection to ask for plans on, in `schema`, with sequential scans off: on a test's few rows a
 * scan is cheapest, and the question is whether an index can bound the read at all.
 */
export async function planningClient(cleanup: Cleanup, schema: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  cleanup.push(() => client.end());
  await client.query(`SET search_path = ${schema}`);
  await client.query("SET enable_seqscan = off");
  return client;
}
