/**
 * Throws malformed JSON, wrong types, huge and odd Unicode strings, invalid URLs and ids at every
 * route of the API (taken from apiRoutes(), so a new route is covered without touching this file)
 * and checks each answer: never a 5xx, a JSON error body with a `code` for every 4xx, and nothing
 * written by a request that was refused. The same fuzz runs over SQLite and over PostgreSQL, whose
 * servers refuse different input (PostgreSQL stores no NUL character). HOOKLINE_FUZZ_SEED replays a
 * run; HOOKLINE_FUZZ_RUNS changes its size. Some POSTs carry an idempotency key: a refused one may
 * keep its key and answer, and nothing else.
 */
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import fc from "fast-check";
import pg from "pg";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteDef } from "../../src/api/route.js";
import { apiRoutes } from "../../src/api/server.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { TEST_DATABASE_URL } from "../support/postgres.js";
import { startApi, type ApiHarness } from "./harness.js";

const RUNS = Number(process.env.HOOKLINE_FUZZ_RUNS ?? 50);
/**
 * Requests per route, by store. Each PostgreSQL request and digest is a round trip: at 50 runs its
 * fuzz took 1.5-2 times as long as SQLite's (31-45 s against 18-26 s on 2 shared cores), so it
 * makes 3/5 of the runs, which take about as long as SQLite's 50.
 */
const RUNS_FOR = { sqlite: RUNS, postgres: Math.max(1, Math.round(RUNS * 0.6)) } as const;
const SEED = process.env.HOOKLINE_FUZZ_SEED ? Number(process.env.HOOKLINE_FUZZ_SEED) : undefined;

/** A digest of every row of each table: equal before and after means nothing was written. */
interface Digest {
  /** Each table's name and a hash of its rows, in name order. */
  read(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/** Reads the SQLite file on a connection of its own, table by table in name order. */
function sqliteDigest(path: string): Digest {
  const db = new Database(path, { readonly: true });
  return {
    read: () => {
      const out: Record<string, string> = {};
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all() as { name: string }[];
      for (const { name } of tables) {
        const hash = createHash("sha256");
        for (const row of db.prepare(`SELECT * FROM "${name}"`).raw().all()) {
          hash.update(
            JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString("hex") : v)),
          );
        }
        out[name] = hash.digest("hex");
      }
      return Promise.resolve(out);
    },
    close: () => Promise.resolve(void db.close()),
  };
}

/**
 * Reads every table of the schema on a connection of its own, in one statement: per table (in name
 * order) an md5 of its rows as text, sorted, so neither row order nor physical layout counts.
 */
async function postgresDigest(schema: string): Promise<Digest> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  const { rows } = await client.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`,
    [schema],
  );
  expect(rows.length).toBeGreaterThan(5);
  const perTable = rows.map(
    ({ name }) =>
      `SELECT ${pg.escapeLiteral(name)} AS name,
              md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS rows
         FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)} t`,
  );
  const text = `SELECT name, rows FROM (${perTable.join(" UNION ALL ")}) d ORDER BY name`;
  return {
    read: async () => {
      const { rows } = await client.query<{ name: string; rows: string }>(text);
      return Object.fromEntries(rows.map((r) => [r.name, r.rows]));
    },
    close: () => client.end(),
  };
}

/** The tables whose rows differ between two digests, but for those in `ignore`. */
function written(
  before: Record<string, string>,
  after: Record<string, string>,
  ignore: readonly string[] = [],
): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((n) => !ignore.includes(n) && before[n] !== after[n]);
}

// ---- what is thrown -----------------------------------------------------------------------

const odd = fc.constantFrom(
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "x\ud83d",
  "𝕳𝖔𝖔𝖐",
  "\u202egnp.exe",
  "\ufeff",
  "../../etc/passwd",
  "' OR 1=1 --",
  "<script>alert(1)</script>",
  "http://",
  "http://[::1",
  "http://127.0.0.1:0/",
  "http://user:pw@example.com/",
  "javascript:alert(1)",
  "ftp://example.com",
  "https://exa mple.com",
  "whsec_",
  "whsec_!!!!",
  "msg_",
  "dlq_00000000000000000000000000",
  "1e999",
  "-1",
  "NaN",
  "true",
  "null",
  "__proto__",
  "constructor",
);
const huge = fc.constantFrom("x".repeat(70_000), "é".repeat(40_000), "\ud800".repeat(10_000));
const oddString = fc.oneof(odd, fc.string({ unit: "binary", maxLength: 40 }), huge);

const value: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: "small" },
  oddString,
  fc.integer(),
  fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.5),
  fc.boolean(),
  fc.constant(null),
  fc.array(oddString, { maxLength: 3 }),
  fc.dictionary(oddString, oddString, { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant(deep(200)),
);

function deep(n: number): unknown {
  let v: unknown = {};
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}

/** The fields a body or query schema names, so wrong values land on real fields too. */
function fieldsOf(schema: z.ZodType | undefined): string[] {
  let s: unknown = schema;
  for (let i = 0; i < 5 && s; i++) {
    if (s instanceof z.ZodObject) return Object.keys(s.shape);
    const def = (s as { def?: { innerType?: unknown; in?: unknown } }).def;
    s = def?.innerType ?? def?.in;
  }
  return [];
}

const malformedJson = fc.constantFrom(
  "{",
  '{"a":',
  "[1,2",
  "nul",
  '{"name":"x",}',
  "\u0000",
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{}}}',
  '"just a string"',
  "[]",
  "123",
  "{}".repeat(1000),
  "[".repeat(100_000),
  '{"payload":' + "[".repeat(10_000) + "]".repeat(10_000) + "}",
  // Nested deeper than any recursive walk of a parsed value could survive.
  '{"eventType":"x","name":"x","url":"https://example.com","payload":' +
    '{"a":'.repeat(20_000) +
    "1" +
    "}".repeat(20_001),
);

/**
 * Valid bodies of the busiest routes: one field spoiled at a time reaches the checks behind the
 * first ones, which an entirely random body rarely gets past.
 */
const VALID: Record<string, Record<string, unknown>> = {
  "POST /api/v1/app": { name: "fuzz" },
  "POST /api/v1/app/{app_id}/endpoint": { url: "https://example.com/hook" },
  "POST /api/v1/app/{app_id}/msg": { eventType: "fuzz.event", payload: { a: 1 } },
  "POST /api/v1/event-type": { name: "fuzz.other", description: "d" },
  "POST /api/v1/tokens": { name: "fuzz", scope: "app", appId: "fuzz-app" },
};

function bodyFor(route: RouteDef): fc.Arbitrary<string> {
  const fields = fieldsOf(route.body);
  const valid = VALID[`${route.method} ${route.path}`];
  const spoiled = valid
    ? fc
        .tuple(fc.constantFrom(...fields, "unknownField"), value)
        .map(([k, v]) => JSON.stringify({ ...valid, [k]: v }))
    : fc.constant("{}");
  const objectBody = fields.length
    ? fc
        .dictionary(fc.constantFrom(...fields), value, { maxKeys: fields.length })
        .map((o) => JSON.stringify(o))
    : fc.constant("{}");
  return fc.oneof(
    spoiled,
    spoiled,
    malformedJson,
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    objectBody,
    objectBody,
    fc.string({ maxLength: 30 }),
  );
}

/** Mostly fresh keys, so that few requests are answered by an earlier one's recorded answer. */
const idempotencyKey = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/),
  fc.constantFrom("fuzz-key", "k".repeat(256), "k".repeat(257), " ", "ÿ\u00e9"),
);

/** A path segment as it would arrive on the wire, including invalid percent-encoding. */
const rawSegment = fc.oneof(
  fc.constantFrom("%", "%ZZ", "%ED%A0%80", "%00", "..", ".", "a%2Fb", "%F0%9F", "x".repeat(300)),
  oddString.map(encodeLenient),
);

function encodeLenient(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return "%ED%A0%80"; // a lone surrogate, encoded as invalid UTF-8
  }
}

/** Ids and names that exist, so some requests get past the lookups. */
type Known = Record<string, string[]>;

function requestFor(route: RouteDef, known: Known) {
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const paramArbs = params.map((p) =>
    known[p] ? fc.oneof(fc.constantFrom(...known[p]!), rawSegment) : rawSegment,
  );
  const queryFields = fieldsOf(route.query);
  const query = fc.dictionary(
    queryFields.length ? fc.oneof(fc.constantFrom(...queryFields), fc.string()) : fc.string(),
    oddString,
    { maxKeys: 3 },
  );
  const hasBody = ["POST", "PUT", "PATCH"].includes(route.method);
  return fc.record({
    values: fc.tuple(...paramArbs),
    query,
    body: hasBody ? fc.option(bodyFor(route), { freq: 8 }) : fc.constant(null),
    contentType: fc.constantFrom(
      "application/json",
      "application/json",
      "application/json",
      "text/plain",
      "application/json; charset=latin1",
      null,
    ),
    // A key makes a POST idempotent: it is looked up (and its answer recorded) in the store.
    idempotencyKey: ["POST"].includes(route.method)
      ? fc.option(idempotencyKey, { freq: 3 })
      : fc.constant(null),
  });
}

describe.each(["sqlite", "postgres"] as const)("fuzzing every route over %s", (kind) => {
  let api: ApiHarness<SqliteStore | PostgresStore>;
  let digest: Digest;
  const known: Known = {};

  beforeAll(async () => {
    api = await startApi({}, undefined, kind);
    digest =
      api.db.kind === "sqlite" ? sqliteDigest(api.db.path) : await postgresDigest(api.db.schema);
    const app = await api.svix.application.create({ name: "fuzz", uid: "fuzz-app" });
    const ep = await api.svix.endpoint.create(app.id, { url: "https://example.com/hook" });
    await api.svix.eventType.create({ name: "fuzz.event", description: "x" });
    const before = await digest.read();
    const msg = await api.svix.message.create(app.id, { eventType: "fuzz.event", payload: {} });
    // The digest sees a write, or "wrote nothing" below would hold of anything.
    expect(written(before, await digest.read())).toContain("messages");
    Object.assign(known, {
      app_id: [app.id, "fuzz-app"],
      endpoint_id: [ep.id],
      msg_id: [msg.id],
      event_type_name: ["fuzz.event"],
    });
  });

  afterAll(async () => {
    await digest?.close();
    await api?.close();
  });

  it("answers every malformed request with a 4xx JSON error and writes nothing", async () => {
    const routes = apiRoutes(api.deps);
    expect(routes.length).toBeGreaterThan(30);
    const found: string[] = [];
    // Nothing else writes, so what one request left is what the next one finds: one read each.
    let after = await digest.read();
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(requestFor(route, known), async (req) => {
          let i = 0;
          const path = route.path.replace(/\{(\w+)\}/g, () => req.values[i++] as string);
          const qs = Object.entries(req.query)
            .map(([k, v]) => `${encodeLenient(k)}=${encodeLenient(v)}`)
            .join("&");
          const before = after;
          const res = await api.app.inject({
            method: route.method,
            url: qs ? `${path}?${qs}` : path,
            headers: {
              authorization: `Bearer ${api.token}`,
              ...(req.contentType && req.body !== null ? { "content-type": req.contentType } : {}),
              ...(req.idempotencyKey !== null ? { "idempotency-key": req.idempotencyKey } : {}),
            },
            ...(req.body !== null ? { payload: req.body } : {}),
          });
          after = await digest.read();
          const where = `${route.method} ${route.path} → ${res.statusCode}: ${res.body.slice(0, 200)}`;
          if (res.statusCode >= 500) found.push(where);
          expect(res.statusCode, where).toBeLessThan(500);
          if (res.statusCode >= 400) {
            const body = JSON.parse(res.body) as { code?: unknown };
            expect(typeof body.code, where).toBe("string");
            // A refused request's key may keep its answer, to give it again: nothing else is kept.
            const ignore = req.idempotencyKey !== null ? ["idempotency_keys"] : [];
            expect(written(before, after, ignore), `${where} wrote something`).toEqual([]);
          }
        }),
        { numRuns: RUNS_FOR[kind], seed: SEED, endOnFailure: true },
      );
    }
    expect(found).toEqual([]);
  }, 180_000);
});
