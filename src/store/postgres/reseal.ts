/** Key rotation and the start-up key check on PostgreSQL: raw rows, sealed and opened by Sealing. */
import type pg from "pg";
import type { ResealProgress, ResealRequest } from "../port.js";
import type { Sealing } from "../sealing.js";
import { all, exec, one, tx } from "./database.js";

/**
 * Re-seals one batch in one transaction. The rows are locked while they are rewritten, so an
 * endpoint updated at the same moment is never overwritten with its older value.
 */
export function resealBatch(
  pool: pg.Pool,
  sealing: Sealing,
  req: ResealRequest,
): Promise<ResealProgress> {
  return tx(pool, async (c) => {
    let rewritten = 0;
    const rows =
      req.table === "endpoints"
        ? await all(
            c,
            "SELECT id, secrets, headers FROM endpoints WHERE id > $1 ORDER BY id LIMIT $2 FOR UPDATE",
            [req.afterId, req.limit],
          )
        : await all(
            c,
            "SELECT id, payload FROM messages WHERE id > $1 ORDER BY id LIMIT $2 FOR UPDATE",
            [req.afterId, req.limit],
          );
    for (const r of rows) {
      if (req.table === "endpoints") {
        const secrets = sealing.resealJson(r.secrets);
        const headers = sealing.resealJson(r.headers);
        if (secrets === null && headers === null) continue;
        await exec(c, "UPDATE endpoints SET secrets = $1, headers = $2 WHERE id = $3", [
          secrets ?? JSON.stringify(r.secrets),
          headers ?? JSON.stringify(r.headers),
          r.id,
        ]);
      } else {
        const payload = sealing.resealBytes(r.payload as Buffer);
        if (payload === null) continue;
        await exec(c, "UPDATE messages SET payload = $1 WHERE id = $2", [payload, r.id]);
      }
      rewritten++;
    }
    const last = rows.length < req.limit ? null : String(rows[rows.length - 1]!.id);
    return { lastId: last, scanned: rows.length, rewritten };
  });
}

/** Opens the most recently written endpoint and message: a wrong key fails here, not later. */
export async function verifySealing(pool: pg.Pool, sealing: Sealing): Promise<void> {
  const ep = await one(
    pool,
    "SELECT secrets, headers FROM endpoints ORDER BY updated_at DESC LIMIT 1",
  );
  const msg = await one(pool, "SELECT payload FROM messages ORDER BY id DESC LIMIT 1");
  sealing.verify(ep ? [ep.secrets, ep.headers] : [], msg ? [msg.payload as Buffer] : []);
}
