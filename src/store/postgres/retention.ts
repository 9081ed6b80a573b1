/**
 * Retention in PostgreSQL: deletes what has outlived the retention period in small batches, one
 * transaction per call, so writers waiting on the rows it deletes (the engine recording outcomes)
 * wait for one small batch at most. The caller yields between calls.
 */
import type pg from "pg";
import type { PruneResult } from "../port.js";
import { all, exec, one, tx, type Conn } from "./database.js";

type Kind = Exclude<keyof PruneResult, "done">;

const S = {
  // Locked as they are picked: a replay (resolved → replaying) committed between this and the
  // deletes below would otherwise be deleted with its new history. A record a writer holds now is
  // skipped for the next round; one replayed since the statement began is re-checked and left.
  closedRecords: `SELECT id FROM dead_letters
    WHERE state IN ('resolved', 'abandoned') AND updated_at < $1 ORDER BY updated_at LIMIT $2
    FOR UPDATE SKIP LOCKED`,
  recordEvents: "DELETE FROM dead_letter_events WHERE dead_letter_id = ANY($1::text[])",
  records: "DELETE FROM dead_letters WHERE id = ANY($1::text[])",
  overflow: `DELETE FROM dead_letter_overflow WHERE id IN
    (SELECT id FROM dead_letter_overflow WHERE at < $1 ORDER BY at LIMIT $2)`,
  jobItems: `DELETE FROM replay_job_items WHERE (job_id, dead_letter_id) IN
    (SELECT i.job_id, i.dead_letter_id FROM replay_job_items i
      JOIN replay_jobs j ON j.id = i.job_id WHERE j.finished_at < $1 LIMIT $2)`,
  jobs: `DELETE FROM replay_jobs WHERE id IN
    (SELECT id FROM replay_jobs WHERE finished_at < $1 ORDER BY finished_at LIMIT $2)`,
  // A message goes once no delivery of it is still to be made, no record needs its bytes, and
  // its last attempt is older than the cutoff too: one sent late (a deliverAt or a retry past the
  // period, or held behind an open circuit) keeps its attempts for the period after, and one
  // given up past the depth cap stays to be resent as long as its tombstone (which may be younger
  // than its last attempt: one given up unsent, its endpoint disabled meanwhile).
  // Locked as they are picked, so no resend (which share-locks its message) starts on them; one
  // being written now is skipped. A resend that committed while this statement ran is not
  // visible to it, hence the second look below, in a statement of its own (for its delivery, and
  // for an attempt it made already). The walk starts where
  // the run's last batch ended: the old messages still needed before it (an endpoint's open
  // records may hold thousands) are not read again on every batch.
  oldMessages: `SELECT m.id, m.created_at FROM messages m
      WHERE m.created_at >= $3 AND m.created_at < $1
      AND NOT EXISTS (SELECT 1 FROM deliveries d
        WHERE d.message_id = m.id AND d.state IN ('pending', 'inflight'))
      AND NOT EXISTS (SELECT 1 FROM dead_letters dl WHERE dl.message_id = m.id)
      AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.message_id = m.id AND a.at >= $1)
      AND NOT EXISTS (SELECT 1 FROM dead_letter_overflow o
        WHERE o.message_id = m.id AND o.at >= $1)
    ORDER BY m.created_at LIMIT $2 FOR UPDATE OF m SKIP LOCKED`,
  stillUnneeded: `SELECT u.mid AS id FROM unnest($1::text[]) AS u(mid) WHERE NOT EXISTS
    (SELECT 1 FROM deliveries d WHERE d.message_id = u.mid AND d.state IN ('pending', 'inflight'))
    AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.message_id = u.mid AND a.at >= $2)`,
  messageAttempts: "DELETE FROM attempts WHERE message_id = ANY($1::text[])",
  messageDeliveries: "DELETE FROM deliveries WHERE message_id = ANY($1::text[])",
  messages: "DELETE FROM messages WHERE id = ANY($1::text[])",
  // The expiry is checked again on the row deleted: a key begun again (a new expiry) while this
  // waits for its row lock is re-read then, and the request holding it keeps it. What was picked
  // is counted apart from what went: a batch whose keys were all begun again deletes none, yet
  // more expired keys may lie past them.
  idempotencyKeys: `WITH picked AS MATERIALIZED
      (SELECT scope, key FROM idempotency_keys WHERE expires_at < $1 LIMIT $2),
    gone AS (DELETE FROM idempotency_keys k USING picked p
      WHERE k.scope = p.scope AND k.key = p.key AND k.expires_at < $1 RETURNING 1)
    SELECT (SELECT count(*) FROM picked)::int AS picked, (SELECT count(*) FROM gone)::int AS deleted`,
  // Transitions are written in time order: the oldest are the first by seq, which the primary
  // key reads without an index on \`at\` (a scan for "none left" would read the whole table).
  circuitTransitions: `DELETE FROM circuit_transitions WHERE seq IN
    (SELECT seq FROM (SELECT seq, at FROM circuit_transitions ORDER BY seq LIMIT $2) AS oldest
      WHERE at < $1)`,
  // Every portal link is a token of its own; a token that never expires (expires_at NULL) is
  // kept, revoked or not. No index: the table holds only what the last retention period made.
  apiTokens: `DELETE FROM api_tokens WHERE id IN
    (SELECT id FROM api_tokens WHERE expires_at < $1 LIMIT $2)`,
} as const;

/** Prunes one batch of the first kind of row that has anything to prune. */
export class Retention {
  constructor(private readonly pool: pg.Pool) {}

  prune(req: {
    now: number;
    retentionMs: number;
    batchSize: number;
    messagesFrom?: number;
  }): Promise<PruneResult> {
    const cutoff = req.now - req.retentionMs;
    const n = Math.max(1, req.batchSize);
    let messagesReached: number | null = null;
    // Rows picked are a step even if none is deleted: messages the second look below finds all
    // still needed (resent as they were picked), or keys all begun again as the delete took them.
    // More may lie past them, so the run is not done.
    let picked = false;
    const steps: [Kind, (c: Conn) => Promise<number>][] = [
      ["deadLetters", (c) => this.records(c, cutoff, n)],
      ["overflow", (c) => exec(c, S.overflow, [cutoff, n])],
      [
        "replayJobs",
        async (c) => (await exec(c, S.jobItems, [cutoff, n])) || exec(c, S.jobs, [cutoff, n]),
      ],
      // A message takes its deliveries and attempts along: a quarter of the batch in messages
      // keeps the transaction about the same size as the others.
      [
        "messages",
        async (c) => {
          const q = Math.max(1, Math.ceil(n / 4));
          const from = req.messagesFrom ?? Number.MIN_SAFE_INTEGER;
          const step = await this.messages(c, from, cutoff, q);
          messagesReached = step.reached;
          picked = step.picked > 0;
          return step.deleted;
        },
      ],
      [
        "idempotencyKeys",
        async (c) => {
          const counts = (await one(c, S.idempotencyKeys, [req.now, n]))!;
          picked = Number(counts.picked) > 0;
          return Number(counts.deleted);
        },
      ],
      ["circuitTransitions", (c) => exec(c, S.circuitTransitions, [cutoff, n])],
      ["apiTokens", (c) => exec(c, S.apiTokens, [cutoff, n])],
    ];
    return tx(this.pool, async (c): Promise<PruneResult> => {
      // Set afresh on each try: a try rolled back after its walk must not move the position.
      messagesReached = req.messagesFrom ?? null;
      picked = false;
      const result: PruneResult = {
        deadLetters: 0,
        overflow: 0,
        replayJobs: 0,
        messages: 0,
        idempotencyKeys: 0,
        circuitTransitions: 0,
        apiTokens: 0,
        messagesReached: null,
        done: true,
      };
      for (const [kind, step] of steps) {
        const deleted = await step(c);
        if (deleted > 0 || picked) {
          result[kind] = deleted;
          result.done = false;
          break;
        }
      }
      result.messagesReached = messagesReached;
      return result;
    });
  }

  private async records(c: Conn, cutoff: number, n: number): Promise<number> {
    const ids = (await all(c, S.closedRecords, [cutoff, n])).map((r) => String(r.id));
    if (ids.length === 0) return 0;
    await exec(c, S.recordEvents, [ids]);
    return exec(c, S.records, [ids]);
  }

  private async messages(
    c: Conn,
    from: number,
    cutoff: number,
    n: number,
  ): Promise<{ deleted: number; picked: number; reached: number }> {
    const rows = await all(c, S.oldMessages, [cutoff, n, from]);
    // None left before the cutoff: the run's later batches walk only what ages past it meanwhile.
    if (rows.length === 0) return { deleted: 0, picked: 0, reached: cutoff };
    // Messages made in the same millisecond as the last one may be left (locked, or past the
    // batch): the next batch starts at that millisecond, not after it.
    const reached = Number(rows.at(-1)!.created_at);
    const picked = rows.map((r) => String(r.id));
    const ids = (await all(c, S.stillUnneeded, [picked, cutoff])).map((r) => String(r.id));
    if (ids.length === 0) return { deleted: 0, picked: rows.length, reached };
    await exec(c, S.messageAttempts, [ids]);
    await exec(c, S.messageDeliveries, [ids]);
    return { deleted: await exec(c, S.messages, [ids]), picked: rows.length, reached };
  }
}
