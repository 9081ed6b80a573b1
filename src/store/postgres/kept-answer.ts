/**
 * A keyed request's answer kept on its idempotency key in the transaction of what it writes (see
 * `KeptAnswer`), the same way for every write that takes one.
 */
import type pg from "pg";
import type { KeptAnswer } from "../port.js";
import { exec, tx, type Conn, type Sql } from "./database.js";
import { CATALOGUE } from "./statements.js";

const KEPT = `SELECT 1 FROM idempotency_keys
  WHERE scope = $1 AND key = $2 AND owner = $3 AND state = 'done'`;

/**
 * `write` and, for a keyed request, its answer kept in one transaction; without one, `write`
 * alone on the pool, as it was (an unkeyed request pays nothing for it).
 */
export function withKeptAnswer<R>(
  pool: pg.Pool,
  write: (c: Conn) => Promise<R>,
  kept: KeptAnswer<R> | undefined,
): Promise<R> {
  if (!kept) return write(pool);
  let answered = false;
  // A COMMIT whose answer was lost landed if the key holds the answer: both were in it.
  const landed = async (_: R, p: pg.Pool) =>
    answered && (await exec(p, KEPT, [kept.held.scope, kept.held.key, kept.held.owner])) === 1;
  return tx(
    pool,
    async (c) => {
      const result = await write(c);
      answered = await keepAnswer(c, kept, result);
      return result;
    },
    "write",
    landed,
  );
}

/**
 * Within the write's transaction: keeps the answer made of `result`, if one is made; true when it
 * did. `keep` is the statement that stores it on a key the request still holds (scope, key, owner,
 * status, body).
 */
export async function keepAnswer<R>(
  c: Conn,
  { held, answer }: KeptAnswer<R>,
  result: R,
  keep: Sql = CATALOGUE.finishIdem,
): Promise<boolean> {
  const kept = answer(result);
  if (!kept) return false;
  return (await exec(c, keep, [held.scope, held.key, held.owner, kept.status, kept.body])) === 1;
}
