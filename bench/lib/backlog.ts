/**
 * Writes durable work straight into a stopped hookline's SQLite file, in the same row shapes the
 * store writes when it accepts a message (src/store/sqlite/deliveries.ts: insertMessage,
 * insertDelivery). Used to build backlogs of any size in seconds: one transaction, prepared
 * statements, secondary indexes dropped during the load and rebuilt after.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import { syncDataDir } from "./hookline.js";

// Crockford base32, as hookline's ids: a time part then a per-process counter, so ids sort.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
let counter = 0;

function base32(value: number, width: number): string {
  let out = "";
  let v = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[v % 32]! + out;
    v = Math.floor(v / 32);
  }
  return out;
}

/** A hookline-shaped id (`msg_…`, 27 characters after the prefix). */
export function benchId(prefix: string, now = Date.now()): string {
  return `${prefix}_${base32(now, 10)}${base32(++counter, 8)}BENCH${base32(process.pid % 1024, 3)}`;
}

/** A fresh Standard Webhooks secret, as hookline generates them. */
export function benchSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/** A typical webhook body, about 300 bytes of JSON. */
export function samplePayload(i: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      type: "invoice.paid",
      data: {
        invoice: `in_${1_000_000 + i}`,
        customer: `cus_${(i * 7919) % 100_000}`,
        amount: 4200 + (i % 1000),
        currency: "eur",
        status: "paid",
        lines: [{ sku: "plan-pro", quantity: 1, unitAmount: 4200 }],
        paidAt: "2025-01-01T12:00:00Z",
      },
    }),
    "utf8",
  );
}

/** The SQLite file of a hookline data dir. */
export function dbPath(dataDir: string): string {
  return join(dataDir, "hookline.db");
}

export interface BacklogSpec {
  appId: string;
  /** Endpoint of the i-th delivery. */
  endpointOf: (i: number) => string;
  count: number;
  /** Due time (ms since the epoch) of the i-th delivery; default: now. */
  dueAt?: (i: number) => number;
  eventType?: string;
}

/**
 * Inserts `count` messages, each with one pending delivery, in one transaction. Returns the
 * message ids (in order) when `keepIds` is set, for scenarios that match arrivals to due times.
 */
export function writeBacklog(dataDir: string, spec: BacklogSpec, keepIds = false): string[] {
  const db = new Database(dbPath(dataDir));
  const ids: string[] = [];
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("cache_size = -262144");
    const insertMessage = db.prepare(`INSERT INTO messages
      (id, app_id, event_type, event_id, channels, tags, payload, created_at)
      VALUES (?, ?, ?, NULL, NULL, NULL, ?, ?)`);
    const insertDelivery = db.prepare(`INSERT INTO deliveries
      (id, app_id, message_id, endpoint_id, state, origin, next_attempt_at, created_at)
      VALUES (?, ?, ?, ?, 'pending', 'message', ?, ?)`);
    const eventType = spec.eventType ?? "invoice.paid";
    const big = spec.count >= 50_000;
    withoutIndexes(db, ["messages", "deliveries"], big, () => {
      const now = Date.now();
      for (let i = 0; i < spec.count; i++) {
        const msgId = benchId("msg", now);
        const due = spec.dueAt ? spec.dueAt(i) : now;
        insertMessage.run(msgId, spec.appId, eventType, samplePayload(i), now);
        insertDelivery.run(benchId("dlv", now), spec.appId, msgId, spec.endpointOf(i), due, now);
        if (keepIds) ids.push(msgId);
      }
    });
  } finally {
    db.close();
  }
  syncDataDir(dataDir);
  return ids;
}

/** Inserts `count` endpoints of one application directly; returns their ids. */
export function writeEndpoints(
  dataDir: string,
  appId: string,
  count: number,
  urlOf: (i: number) => string,
): string[] {
  const db = new Database(dbPath(dataDir));
  try {
    const insert = db.prepare(`INSERT INTO endpoints (id, app_id, uid, url, description, version,
      disabled, disabled_reason, filter_types, channels, headers, metadata, rate_limit, secrets,
      delivery_policy, created_at, updated_at)
      VALUES (?, ?, NULL, ?, '', 1, 0, NULL, NULL, NULL, '{}', '{}', NULL, ?, NULL, ?, ?)`);
    const ids: string[] = [];
    db.transaction(() => {
      const now = Date.now();
      for (let i = 0; i < count; i++) {
        const id = benchId("ep", now);
        insert.run(
          id,
          appId,
          urlOf(i),
          JSON.stringify({ current: benchSecret(), previous: [] }),
          now,
          now,
        );
        ids.push(id);
      }
    })();
    return ids;
  } finally {
    db.close();
  }
}

/** Counts deliveries by state and attempts, after hookline has stopped. */
export function deliveryStates(dataDir: string): {
  states: Record<string, number>;
  attempts: number;
} {
  const db = new Database(dbPath(dataDir), { readonly: true });
  try {
    const rows = db.prepare("SELECT state, count(*) AS n FROM deliveries GROUP BY state").all() as {
      state: string;
      n: number;
    }[];
    const attempts = (db.prepare("SELECT count(*) AS n FROM attempts").get() as { n: number }).n;
    return { states: Object.fromEntries(rows.map((r) => [r.state, r.n])), attempts };
  } finally {
    db.close();
  }
}

/** How many of `ids` are stored as messages (the durability check after a kill -9). */
export function countStoredMessages(dataDir: string, ids: readonly string[]): number {
  const db = new Database(dbPath(dataDir), { readonly: true });
  try {
    const find = db.prepare("SELECT 1 FROM messages WHERE id = ?");
    let found = 0;
    for (const id of ids) if (find.get(id)) found++;
    return found;
  } finally {
    db.close();
  }
}

// Loading a large table is several times faster with its secondary indexes built afterwards; the
// exact CREATE INDEX statements are read back from the schema, so they stay hookline's own.
function withoutIndexes(
  db: Database.Database,
  tables: string[],
  enabled: boolean,
  load: () => void,
): void {
  const indexes = enabled
    ? (db
        .prepare(
          `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
           AND tbl_name IN (${tables.map(() => "?").join(", ")})`,
        )
        .all(...tables) as { name: string; sql: string }[])
    : [];
  db.transaction(() => {
    for (const ix of indexes) db.exec(`DROP INDEX "${ix.name}"`);
    load();
    for (const ix of indexes) db.exec(ix.sql);
  })();
}
