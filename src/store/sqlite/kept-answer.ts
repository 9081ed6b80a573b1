/**
 * A keyed request's answer kept on its idempotency key in the transaction of what it writes (see
 * `KeptAnswer`), the same way for every write that takes one.
 */
import type { Database as Db, Statement } from "better-sqlite3";
import type { KeptAnswer } from "../port.js";

/**
 * `write` and, for a keyed request, its answer kept in one transaction; without one, `write`
 * alone, as it was (an unkeyed request pays nothing for it). `keep` is the statement that stores
 * an answer on a key the request still holds (status, body, scope, key, owner).
 */
export function withKeptAnswer<R>(
  db: Db,
  keep: Statement,
  write: () => R,
  kept: KeptAnswer<R> | undefined,
): R {
  if (!kept) return write();
  return db.transaction(() => {
    const result = write();
    keepAnswer(keep, kept, result);
    return result;
  })();
}

/** Within the write's transaction: keeps the answer made of `result`, if one is made. */
export function keepAnswer<R>(keep: Statement, { held, answer }: KeptAnswer<R>, result: R): void {
  const kept = answer(result);
  if (kept) keep.run(kept.status, kept.body, held.scope, held.key, held.owner);
}
