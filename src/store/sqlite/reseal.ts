/** Key rotation and the start-up key check on SQLite: raw rows, sealed and opened by Sealing. */
import type { Database as Db } from "better-sqlite3";
import type { ResealProgress, ResealRequest } from "../port.js";
import type { Sealing } from "../sealing.js";
import type { Row } from "./rows.js";

const parse = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);

/** Re-seals one batch in one transaction, so a row is never half rewritten. */
export function resealBatch(db: Db, sealing: Sealing, req: ResealRequest): ResealProgress {
  // Overwrite the old contents of rewritten pages rather than leave them readable in free space.
  db.pragma("secure_delete = ON");
  const progress = db
    .transaction((): ResealProgress => {
      let rewritten = 0;
      let rows: Row[];
      if (req.table === "endpoints") {
        rows = db
          .prepare("SELECT id, secrets, headers FROM endpoints WHERE id > ? ORDER BY id LIMIT ?")
          .all(req.afterId, req.limit) as Row[];
        const update = db.prepare("UPDATE endpoints SET secrets = ?, headers = ? WHERE id = ?");
        for (const r of rows) {
          const secrets = sealing.resealJson(parse(r.secrets));
          const headers = sealing.resealJson(parse(r.headers));
          if (secrets === null && headers === null) continue;
          update.run(secrets ?? r.secrets, headers ?? r.headers, r.id);
          rewritten++;
        }
      } else if (req.table === "messages") {
        rows = db
          .prepare("SELECT id, payload FROM messages WHERE id > ? ORDER BY id LIMIT ?")
          .all(req.afterId, req.limit) as Row[];
        const update = db.prepare("UPDATE messages SET payload = ? WHERE id = ?");
        for (const r of rows) {
          const payload = sealing.resealBytes(r.payload as Buffer);
          if (payload === null) continue;
          update.run(payload, r.id);
          rewritten++;
        }
      } else {
        // Every scope is non-empty, so ["", ""] comes before the first key.
        const [scope, key] = req.afterId ? (JSON.parse(req.afterId) as [string, string]) : ["", ""];
        rows = db
          .prepare(
            `SELECT scope, key, body FROM idempotency_keys WHERE (scope, key) > (?, ?)
            ORDER BY scope, key LIMIT ?`,
          )
          .all(scope, key, req.limit) as Row[];
        const update = db.prepare(
          "UPDATE idempotency_keys SET body = ? WHERE scope = ? AND key = ?",
        );
        for (const r of rows) {
          // A request still running has no answer yet; finishing it seals with the current key.
          const body = r.body === null ? null : sealing.resealText(String(r.body));
          if (body === null) continue;
          update.run(body, r.scope, r.key);
          rewritten++;
        }
      }
      const lastRow = rows.length < req.limit ? undefined : rows[rows.length - 1];
      return {
        lastId: lastRow ? cursorOf(req.table, lastRow) : null,
        scanned: rows.length,
        rewritten,
      };
    })
    .immediate();
  // With hookline running, the WAL outlives this connection and keeps every page written before
  // the rewrite, old contents included, until hookline stops. Once a table is done, copy the new
  // pages into the file and empty the WAL.
  if (progress.lastId === null) db.pragma("wal_checkpoint(TRUNCATE)");
  return progress;
}

// Idempotency keys have no id of their own: their cursor is the (scope, key) pair.
function cursorOf(table: ResealRequest["table"], row: Row): string {
  return table === "idempotency_keys" ? JSON.stringify([row.scope, row.key]) : String(row.id);
}

/**
 * Opens the most recently written endpoint and message, and the oldest message still to be sent,
 * and checks every endpoint's key: a wrong key, or an old one removed before `hookline keys
 * rotate` re-sealed the older rows, fails here, not delivery by delivery.
 */
export function verifySealing(db: Db, sealing: Sealing): void {
  const ep = db
    .prepare("SELECT secrets, headers FROM endpoints ORDER BY updated_at DESC LIMIT 1")
    .get() as Row | undefined;
  const msg = db.prepare("SELECT payload FROM messages ORDER BY id DESC LIMIT 1").get() as
    Row | undefined;
  // A message is sealed with the key current when it was accepted, so the oldest one still to
  // be sent is the one a key removed too early leaves unreadable. `+message_id` keeps SQLite on
  // the partial indexes (pending and in-flight rows only) rather than walking every delivery
  // in message order.
  const oldest = db
    .prepare(
      `SELECT payload FROM messages WHERE id = (SELECT min(m) FROM (
        SELECT min(+message_id) AS m FROM deliveries WHERE state = 'pending'
        UNION ALL SELECT min(+message_id) FROM deliveries WHERE state = 'inflight'))`,
    )
    .get() as Row | undefined;
  sealing.verify(
    ep ? [parse(ep.secrets), parse(ep.headers)] : [],
    [msg, oldest].flatMap((m) => (m ? [m.payload as Buffer] : [])),
  );
  const all = db.prepare("SELECT secrets, headers FROM endpoints").iterate() as Iterable<Row>;
  for (const row of all) sealing.verifyKeys([parse(row.secrets), parse(row.headers)]);
}
