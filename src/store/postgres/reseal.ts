/** Key rotation and the start-up key check on PostgreSQL: raw rows, sealed and opened by Sealing. */
import type pg from "pg";
import type { ResealProgress, ResealRequest } from "../port.js";
import type { Sealing } from "../sealing.js";
import { all, exec, one, tx, type Row } from "./database.js";

/**
 * Re-seals one batch in one transaction. The rows are locked while they are rewritten, so an
 * endpoint updated (or an idempotency key finished) at the same moment is never overwritten with
 * its older value.
 */
export function resealBatch(
  pool: pg.Pool,
  sealing: Sealing,
  req: ResealRequest,
): Promise<ResealProgress> {
  return tx(pool, async (c) => {
    let rewritten = 0;
    let rows: Row[];
    if (req.table === "endpoints") {
      rows = await all(
        c,
        "SELECT id, secrets, headers FROM endpoints WHERE id > $1 ORDER BY id LIMIT $2 FOR UPDATE",
        [req.afterId, req.limit],
      );
      for (const r of rows) {
        const secrets = sealing.resealJson(r.secrets);
        const headers = sealing.resealJson(r.headers);
        if (secrets === null && headers === null) continue;
        await exec(c, "UPDATE endpoints SET secrets = $1, headers = $2 WHERE id = $3", [
          secrets ?? JSON.stringify(r.secrets),
          headers ?? JSON.stringify(r.headers),
          r.id,
        ]);
        rewritten++;
      }
    } else if (req.table === "messages") {
      rows = await all(
        c,
        "SELECT id, payload FROM messages WHERE id > $1 ORDER BY id LIMIT $2 FOR UPDATE",
        [req.afterId, req.limit],
      );
      for (const r of rows) {
        const payload = sealing.resealBytes(r.payload as Buffer);
        if (payload === null) continue;
        await exec(c, "UPDATE messages SET payload = $1 WHERE id = $2", [payload, r.id]);
        rewritten++;
      }
    } else {
      // Every scope is non-empty, so ["", ""] comes before the first key.
      const after = req.afterId ? (JSON.parse(req.afterId) as [string, string]) : ["", ""];
      rows = await all(
        c,
        `SELECT scope, key, body FROM idempotency_keys WHERE (scope, key) > ($1, $2)
        ORDER BY scope, key LIMIT $3 FOR UPDATE`,
        [...after, req.limit],
      );
      for (const r of rows) {
        // A request still running has no answer yet; finishing it seals with the current key.
        const body = r.body === null ? null : sealing.resealText(String(r.body));
        if (body === null) continue;
        await exec(c, "UPDATE idempotency_keys SET body = $1 WHERE scope = $2 AND key = $3", [
          body,
          r.scope,
          r.key,
        ]);
        rewritten++;
      }
    }
    const lastRow = rows.length < req.limit ? undefined : rows[rows.length - 1];
    return {
      lastId: lastRow ? cursorOf(req.table, lastRow) : null,
      scanned: rows.length,
      rewritten,
    };
  });
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
export async function verifySealing(pool: pg.Pool, sealing: Sealing): Promise<void> {
  const ep = await one(
    pool,
    "SELECT secrets, headers FROM endpoints ORDER BY updated_at DESC LIMIT 1",
  );
  const msg = await one(pool, "SELECT payload FROM messages ORDER BY id DESC LIMIT 1");
  // A message is sealed with the key current when it was accepted, so the oldest one still to
  // be sent is the one a key removed too early leaves unreadable. The deliveries still to be sent
  // are gathered first, from the partial indexes: a plain min(message_id) walks the message index
  // from its start, through every delivery already made.
  const oldest = await one(
    pool,
    `WITH due AS MATERIALIZED (
      SELECT message_id FROM deliveries WHERE state = 'pending'
      UNION ALL SELECT message_id FROM deliveries WHERE state = 'inflight')
    SELECT payload FROM messages WHERE id = (SELECT min(message_id) FROM due)`,
  );
  sealing.verify(
    ep ? [ep.secrets, ep.headers] : [],
    [msg, oldest].flatMap((m) => (m ? [m.payload as Buffer] : [])),
  );
  for (const row of await all(pool, "SELECT secrets, headers FROM endpoints")) {
    sealing.verifyKeys([row.secrets, row.headers]);
  }
}
