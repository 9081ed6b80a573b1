/**
 * For the tests that kill `hookline keys rotate`: a store with enough sealed rows for a rotation
 * to take a while, everything a hookline shows of them read through its API, and where a
 * rotation stands, read from the rows themselves.
 */
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { expect } from "vitest";
import { FieldCipher, keyId } from "../../src/security/cipher.js";
import type { Store } from "../../src/store/port.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { runCli, spawnCli } from "./built-cli.js";
import { adminQuery } from "./postgres.js";
import { spawnHookline, stop, TEST_TOKEN } from "./process.js";

/** Messages put straight into the store, and messages with idempotency keys made through the API. */
export const BULK_MESSAGES = 3_000;
export const KEYED_MESSAGES = 100;

/** A row of a table the rotation walks, in the order it walks them. */
export interface RotatedRow {
  table: "endpoints" | "messages" | "idempotency_keys";
  /** The row's id; for an idempotency key, its key (each is in a scope of its own here). */
  id: string;
}

/**
 * Fills `store` (opened with the first key) with applications, endpoints with signing secrets (one
 * with a previous secret) and custom headers, and `count` messages whose deliveries are due
 * tomorrow: a store hookline starts on without sending anything while the test reads it.
 */
export async function fillStore(
  store: Store,
  count = BULK_MESSAGES,
): Promise<{ quietAppId: string }> {
  const acme = await store.createApplication(anApplication({ uid: "acme", name: "Acme" }));
  const quiet = await store.createApplication(anApplication({ uid: "quiet", name: "Quiet" }));
  const now = Date.now();
  for (let i = 0; i < 4; i++) {
    await store.createEndpoint(
      anEndpoint(acme.id, {
        uid: `ep-${i}`,
        url: `https://receiver-${i}.example/hooks`,
        headers: { "x-receiver-credential": `credential-${i}-${randomBytes(8).toString("hex")}` },
        secrets: {
          current: `whsec_${randomBytes(24).toString("base64")}`,
          previous:
            i === 0
              ? [
                  {
                    secret: `whsec_${randomBytes(24).toString("base64")}`,
                    expiresAt: now + 86_400_000,
                  },
                ]
              : [],
        },
        createdAt: now,
        updatedAt: now,
      }),
    );
  }
  const pad = randomBytes(3_000).toString("base64");
  // A few at a time: on PostgreSQL, each is a transaction of its own with its round trips.
  for (let i = 0; i < count; i += 8) {
    const some = Array.from({ length: Math.min(8, count - i) }, (_, j) =>
      accept(store, acme.id, {
        payload: Buffer.from(JSON.stringify({ invoice: i + j, note: pad })),
        now: now + i + j,
        dueAt: now + 86_400_000,
      }),
    );
    await Promise.all(some);
  }
  return { quietAppId: quiet.id };
}

/** The idempotency keys of the messages {@link postKeyedMessages} made, and their bodies. */
const keyed = Array.from({ length: KEYED_MESSAGES }, (_, i) => ({
  key: `rotation-key-${String(i).padStart(4, "0")}`,
  body: { eventType: "invoice.paid", payload: { invoice: `keyed-${i}`, card: "4242-secret" } },
}));

/**
 * Posts KEYED_MESSAGES messages, each with an idempotency key, to the application with no
 * endpoints (nothing is sent), through a hookline running with `env`, so that their answers are
 * kept sealed with its key; then reads everything as {@link readThroughHookline} does.
 */
export async function postKeyedMessagesAndRead(
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  return withHookline(env, async (url) => {
    for (const { key, body } of keyed) {
      const res = await post(url, "/api/v1/app/quiet/msg", body, key);
      if (res.status !== 202) throw new Error(`posting ${key}: ${res.status} ${res.text}`);
    }
    return readEverything(url);
  });
}

/** `use` of a `hookline serve` started with `env` (which names its data dir), stopped after. */
async function withHookline<T>(
  env: Record<string, string>,
  use: (url: string) => Promise<T>,
): Promise<T> {
  const dataDir = env.HOOKLINE_DATA_DIR;
  if (!dataDir) throw new Error("the settings name no HOOKLINE_DATA_DIR");
  const hookline = await spawnHookline(dataDir, env);
  try {
    return await use(hookline.url);
  } finally {
    await stop(hookline);
  }
}

async function post(url: string, path: string, body: unknown, key: string) {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TEST_TOKEN}`,
      "content-type": "application/json",
      "idempotency-key": key,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function get(url: string, path: string): Promise<unknown> {
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as unknown;
}

/**
 * Everything sealed, as a hookline started with `env` shows it: every application and endpoint,
 * each endpoint's secret and headers, every message with its payload (every page), and the answer
 * each idempotency key replays. Fails with what hookline printed if it does not start (a key it
 * needs is missing).
 */
export async function readThroughHookline(
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  return withHookline(env, readEverything);
}

/** What {@link readThroughHookline} reads, from the hookline at `url`. */
async function readEverything(url: string): Promise<Record<string, unknown>> {
  const seen: Record<string, unknown> = {};
  const apps = (await get(url, "/api/v1/app?limit=250")) as { data: { id: string }[] };
  seen.apps = apps;
  for (const app of apps.data) {
    const eps = (await get(url, `/api/v1/app/${app.id}/endpoint?limit=250`)) as {
      data: { id: string }[];
    };
    seen[`endpoints ${app.id}`] = eps;
    for (const ep of eps.data) {
      const at = `/api/v1/app/${app.id}/endpoint/${ep.id}`;
      seen[at] = await get(url, at);
      seen[`${at}/secret`] = await get(url, `${at}/secret`);
      seen[`${at}/headers`] = await get(url, `${at}/headers`);
    }
    const messages: unknown[] = [];
    let iterator: string | null = null;
    for (;;) {
      const at: string = iterator ? `&iterator=${encodeURIComponent(iterator)}` : "";
      const page = (await get(
        url,
        `/api/v1/app/${app.id}/msg?limit=250&with_content=true${at}`,
      )) as {
        data: unknown[];
        iterator: string | null;
        done: boolean;
      };
      messages.push(...page.data);
      if (page.done) break;
      iterator = page.iterator;
    }
    seen[`messages ${app.id}`] = messages;
  }
  for (const { key, body } of keyed) {
    seen[`replay ${key}`] = await post(url, "/api/v1/app/quiet/msg", body, key);
  }
  return seen;
}

/** A small seeded random source (mulberry32): the same kill points on every run of a test. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A row picked by `random` in `range` of the rotation's order (from, inclusive, to): the table
 * first (each as likely), then the row, so that kills land in every table and not only among the
 * many messages.
 */
export function pickRow(
  rows: readonly RotatedRow[],
  range: { from: number; to: number },
  random: () => number,
): number {
  const within = (i: number) => i >= range.from && i < range.to;
  const tables = [...new Set(rows.filter((_, i) => within(i)).map((r) => r.table))];
  const table = tables[Math.floor(random() * tables.length)];
  const candidates = rows.flatMap((r, i) => (within(i) && r.table === table ? [i] : []));
  return candidates[Math.floor(random() * candidates.length)]!;
}

/** Where a rotation stands, read from the rows as the command leaves them. */
export interface RotationWatch {
  /** Every row the rotation walks, in its order. */
  rows(): Promise<RotatedRow[]>;
  /** Whether `row` is sealed with the key whose id is `keyId` (committed). */
  sealedWith(row: RotatedRow, keyId: string): Promise<boolean>;
  /** How many rows hold a value not sealed with that key (an endpoint's secrets or headers). */
  notSealedWith(keyId: string): Promise<number>;
  close(): Promise<void>;
}

/** A SQLite store's rows, read on a read-only connection of the test's own. */
export function watchSqlite(file: string): RotationWatch {
  const db = new Database(file, { readonly: true });
  const head = {
    endpoints: db.prepare("SELECT secrets AS v FROM endpoints WHERE id = ?"),
    messages: db.prepare("SELECT substr(payload, 1, 15) AS v FROM messages WHERE id = ?"),
    idempotency_keys: db.prepare(
      "SELECT substr(body, 1, 16) AS v FROM idempotency_keys WHERE key = ?",
    ),
  };
  return {
    rows: async () => [
      ...idsOf("endpoints", db.prepare("SELECT id FROM endpoints ORDER BY id").all()),
      ...idsOf("messages", db.prepare("SELECT id FROM messages ORDER BY id").all()),
      ...idsOf(
        "idempotency_keys",
        db.prepare("SELECT key AS id FROM idempotency_keys ORDER BY scope, key").all(),
      ),
    ],
    sealedWith: async (row, keyId) =>
      isSealedWith(row, (head[row.table].get(row.id) as { v: unknown }).v, keyId),
    notSealedWith: async (keyId) => {
      const text = `%enc:v1:${keyId}:%`;
      const bytes = Buffer.from(keyId, "latin1");
      const counts = db
        .prepare(
          `SELECT (SELECT count(*) FROM endpoints WHERE secrets NOT LIKE :text OR headers NOT LIKE :text)
            + (SELECT count(*) FROM messages WHERE substr(payload, 8, 8) <> :bytes)
            + (SELECT count(*) FROM idempotency_keys WHERE body NOT LIKE :text) AS n`,
        )
        .get({ text, bytes }) as { n: number };
      return counts.n;
    },
    close: async () => void db.close(),
  };
}

/** A PostgreSQL schema's rows, read on connections of the test's own. */
export function watchPostgres(schema: string): RotationWatch {
  const head = {
    endpoints: `SELECT secrets::text AS v FROM ${schema}.endpoints WHERE id = $1`,
    messages: `SELECT substring(payload from 1 for 15) AS v FROM ${schema}.messages WHERE id = $1`,
    idempotency_keys: `SELECT substr(body, 1, 16) AS v FROM ${schema}.idempotency_keys WHERE key = $1`,
  };
  return {
    rows: async () => [
      ...idsOf("endpoints", await adminQuery(`SELECT id FROM ${schema}.endpoints ORDER BY id`)),
      ...idsOf("messages", await adminQuery(`SELECT id FROM ${schema}.messages ORDER BY id`)),
      ...idsOf(
        "idempotency_keys",
        await adminQuery(`SELECT key AS id FROM ${schema}.idempotency_keys ORDER BY scope, key`),
      ),
    ],
    sealedWith: async (row, keyId) =>
      isSealedWith(row, (await adminQuery(head[row.table], [row.id]))[0]!.v, keyId),
    notSealedWith: async (keyId) => {
      const [counts] = await adminQuery(
        `SELECT (SELECT count(*) FROM ${schema}.endpoints
              WHERE secrets::text NOT LIKE $1 OR headers::text NOT LIKE $1)
            + (SELECT count(*) FROM ${schema}.messages WHERE substring(payload from 8 for 8) <> $2)
            + (SELECT count(*) FROM ${schema}.idempotency_keys WHERE body NOT LIKE $1) AS n`,
        [`%enc:v1:${keyId}:%`, Buffer.from(keyId, "latin1")],
      );
      return Number(counts!.n);
    },
    close: async () => undefined,
  };
}

function idsOf(table: RotatedRow["table"], rows: unknown[]): RotatedRow[] {
  return (rows as { id: string }[]).map((r) => ({ table, id: r.id }));
}

/** Text is sealed as `enc:v1:<key id>:…` (an endpoint's, inside a JSON string); bytes as a prefix, then the id. */
function isSealedWith(row: RotatedRow, value: unknown, keyId: string): boolean {
  if (row.table === "messages")
    return (value as Buffer).subarray(7, 15).toString("latin1") === keyId;
  return String(value).includes(`enc:v1:${keyId}:`);
}

/**
 * Runs `hookline keys rotate` with `env` and SIGKILLs it as soon as `row` is sealed with the key
 * whose id is `keyId` (or lets it end, if it ends first). Resolves with how it ended.
 */
export async function rotateKilledAfter(
  env: Record<string, string>,
  watch: RotationWatch,
  row: RotatedRow,
  keyId: string,
  batchSize: number,
): Promise<number | string> {
  const run = spawnCli(["keys", "rotate", "--batch-size", String(batchSize)], env);
  let ended = false;
  void run.exited.then(() => (ended = true));
  while (!ended && !(await watch.sealedWith(row, keyId))) {
    await new Promise((r) => setTimeout(r, 5));
  }
  run.child.kill("SIGKILL");
  const code = await run.exited;
  if (code !== "SIGKILL" && code !== 0) {
    throw new Error(`keys rotate failed (${code}):\n${run.out()}${run.err()}`);
  }
  return code;
}

/** What {@link killRotationsAtSeededRows} runs on: one store, and how to reach it. */
export interface RotationScenario {
  /** The settings that name the store, to which the test adds the keys. */
  store: Record<string, string>;
  /** Opens the store sealing with `cipher`, for the test to fill. */
  open(cipher: FieldCipher): Promise<Store>;
  watch(): RotationWatch;
  /** Seeds of the kill points: each rotates to the other key, killed twice, then run to its end. */
  seeds: readonly number[];
  batchSize: number;
}

/**
 * The store filled with sealed rows under a first key; then, per seed, a rotation to the other key
 * killed at two rows picked by the seed, hookline started after each kill with both keys (the
 * docs' step 1 settings) showing everything as before, and the rotation run again to its end,
 * after which every row is sealed with the new key and hookline started with it alone (step 3)
 * shows everything as before.
 */
export async function killRotationsAtSeededRows(s: RotationScenario): Promise<void> {
  const first = randomBytes(32);
  const second = randomBytes(32);
  const store = await s.open(new FieldCipher(first));
  await fillStore(store);
  await store.close();
  const settings = (key: Buffer, old?: Buffer) => ({
    ...s.store,
    HOOKLINE_ENCRYPTION_KEY: key.toString("base64"),
    ...(old ? { HOOKLINE_ENCRYPTION_OLD_KEYS: old.toString("base64") } : {}),
  });
  const before = await postKeyedMessagesAndRead(settings(first));

  const watch = s.watch();
  try {
    const rows = await watch.rows();
    let [key, old] = [second, first];
    for (const seed of s.seeds) {
      const random = seeded(seed);
      for (let kill = 0; kill < 2; kill++) {
        // The rows are re-sealed in order: the next kill is at a row still to be done, and not in
        // the last batch, where the command would end before the kill.
        const from = rows.length - (await watch.notSealedWith(keyId(key)));
        const to = rows.length - s.batchSize;
        if (from >= to) break;
        const at = pickRow(rows, { from, to }, random);
        await rotateKilledAfter(settings(key, old), watch, rows[at]!, keyId(key), s.batchSize);
        const seen = await readThroughHookline(settings(key, old));
        expect(seen, `seed ${seed}, killed after ${rows[at]!.table} ${at}`).toEqual(before);
      }
      const args = ["keys", "rotate", "--batch-size", String(s.batchSize)];
      const done = await runCli(args, settings(key, old));
      expect(done.code, done.err).toBe(0);
      expect(done.out).toContain("done: the old keys may now be removed");
      expect(await watch.notSealedWith(keyId(key))).toBe(0);
      expect(await readThroughHookline(settings(key)), `seed ${seed}, done`).toEqual(before);
      [key, old] = [old, key];
    }
  } finally {
    await watch.close();
  }
}
