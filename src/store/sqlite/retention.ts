/**
 * Retention in SQLite: deletes what has outlived the retention period in small batches, one
 * transaction per call, so a writer waiting behind it (the engine recording outcomes) waits for
 * one small batch at most. The caller yields between calls.
 */
import type { Database as Db, Statement } from "better-sqlite3";
import type { PruneResult } from "../port.js";
import type { Row } from "./rows.js";

type Kind = Exclude<keyof PruneResult, "done">;

function prepareRetention(db: Db) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    closedRecords: p(`SELECT id FROM dead_letters
        WHERE state IN ('resolved', 'abandoned') AND updated_at < ? ORDER BY updated_at LIMIT ?`),
    recordEvents: p(`DELETE FROM dead_letter_events
        WHERE dead_letter_id IN (SELECT value FROM json_each(?))`),
    records: p("DELETE FROM dead_letters WHERE id IN (SELECT value FROM json_each(?))"),
    overflow: p(`DELETE FROM dead_letter_overflow WHERE id IN
        (SELECT id FROM dead_letter_overflow WHERE at < ? ORDER BY at LIMIT ?)`),
    jobItems: p(`DELETE FROM replay_job_items WHERE rowid IN
        (SELECT i.rowid FROM replay_job_items i JOIN replay_jobs j ON j.id = i.job_id
          WHERE j.finished_at < ? LIMIT ?)`),
    jobs: p(`DELETE FROM replay_jobs WHERE id IN
        (SELECT id FROM replay_jobs WHERE finished_at < ? ORDER BY finished_at LIMIT ?)`),
    // A message goes once no delivery of it is still to be made, no record needs its bytes, and
    // its last attempt is older than the cutoff too: one sent late (a deliverAt or a retry past
    // the period, or held behind an open circuit) keeps its attempts for the period after, and
    // one given up past the depth cap stays to be resent as long as its tombstone (which may
    // be younger than its last attempt: one given up unsent, its endpoint disabled meanwhile).
    // The walk starts where the run's last batch ended: the old messages still needed before it
    // (an endpoint's open records may hold thousands) are not read again on every batch.
    oldMessages: p(`SELECT m.id, m.created_at FROM messages m
        WHERE m.created_at >= ? AND m.created_at < ?
          AND NOT EXISTS (SELECT 1 FROM deliveries d
            WHERE d.message_id = m.id AND d.state IN ('pending', 'inflight'))
          AND NOT EXISTS (SELECT 1 FROM dead_letters dl WHERE dl.message_id = m.id)
          AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.message_id = m.id AND a.at >= ?)
          AND NOT EXISTS (SELECT 1 FROM dead_letter_overflow o
            WHERE o.message_id = m.id AND o.at >= ?)
        ORDER BY m.created_at LIMIT ?`),
    // What a message takes along, counted through the indexes by message (see messages below).
    deliveriesOf: p("SELECT count(*) AS n FROM deliveries WHERE message_id = ?"),
    attemptsOf: p("SELECT count(*) AS n FROM attempts WHERE message_id = ?"),
    messageAttempts: p(`DELETE FROM attempts
        WHERE message_id IN (SELECT value FROM json_each(?))`),
    messageDeliveries: p(`DELETE FROM deliveries
        WHERE message_id IN (SELECT value FROM json_each(?))`),
    messages: p("DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?))"),
    idempotencyKeys: p(`DELETE FROM idempotency_keys WHERE rowid IN
        (SELECT rowid FROM idempotency_keys WHERE expires_at < ? LIMIT ?)`),
    // Transitions are written in time order: the oldest are the first by seq, which the primary
    // key reads without an index on \`at\` (a scan for "none left" would read the whole table).
    circuitTransitions: p(`DELETE FROM circuit_transitions WHERE seq IN
        (SELECT seq FROM (SELECT seq, at FROM circuit_transitions ORDER BY seq LIMIT ?)
          WHERE at < ?)`),
    // Every portal link is a token of its own; a token that never expires (expires_at NULL) is
    // kept, revoked or not. No index: the table holds only what the last retention period made.
    apiTokens: p(`DELETE FROM api_tokens WHERE rowid IN
        (SELECT rowid FROM api_tokens WHERE expires_at < ? LIMIT ?)`),
  };
}

/**
 * A batch of messages deletes at most this many rows (messages, deliveries and attempts) per row
 * of the batch: 4,000 for the default 500. Counted in messages alone (a quarter of the batch), one
 * batch of an application with a wide fan-out and retried deliveries deleted tens of thousands
 * of rows, holding the writer, and so the API and every delivery, for as long (125 messages to 50
 * endpoints with five attempts each: 250–450 ms). Smaller batches rewrite the same index pages
 * once a commit each, so the limit leaves the batches of a fan-out of 10 as they were (2,600 rows)
 * and cuts only wider ones.
 */
const MESSAGE_ROWS_PER_ROW = 8;

/** Prunes one batch of the first kind of row that has anything to prune. */
export class Retention {
  private readonly s: ReturnType<typeof prepareRetention>;

  constructor(private readonly db: Db) {
    this.s = prepareRetention(db);
  }

  prune(req: {
    now: number;
    retentionMs: number;
    batchSize: number;
    messagesFrom?: number;
  }): PruneResult {
    const cutoff = req.now - req.retentionMs;
    const n = Math.max(1, req.batchSize);
    let messagesReached = req.messagesFrom ?? null;
    const steps: [Kind, () => number][] = [
      ["deadLetters", () => this.records(cutoff, n)],
      ["overflow", () => this.s.overflow.run(cutoff, n).changes],
      [
        "replayJobs",
        () => this.s.jobItems.run(cutoff, n).changes || this.s.jobs.run(cutoff, n).changes,
      ],
      // A message takes its deliveries and attempts along: at most a quarter of the batch in
      // messages, and at most MESSAGE_ROWS_PER_ROW times the batch in rows (see messages below).
      [
        "messages",
        () => {
          const q = Math.max(1, Math.ceil(n / 4));
          const from = req.messagesFrom ?? Number.MIN_SAFE_INTEGER;
          const walked = this.messages(from, cutoff, q, n * MESSAGE_ROWS_PER_ROW);
          messagesReached = walked.reached;
          return walked.deleted;
        },
      ],
      ["idempotencyKeys", () => this.s.idempotencyKeys.run(req.now, n).changes],
      ["circuitTransitions", () => this.s.circuitTransitions.run(n, cutoff).changes],
      ["apiTokens", () => this.s.apiTokens.run(cutoff, n).changes],
    ];
    return this.db.transaction((): PruneResult => {
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
        const deleted = step();
        if (deleted > 0) {
          result[kind] = deleted;
          result.done = false;
          break;
        }
      }
      result.messagesReached = messagesReached;
      return result;
    })();
  }

  private records(cutoff: number, n: number): number {
    const ids = JSON.stringify((this.s.closedRecords.all(cutoff, n) as Row[]).map((r) => r.id));
    this.s.recordEvents.run(ids);
    return this.s.records.run(ids).changes;
  }

  /**
   * Deletes the oldest of up to `q` messages no longer needed whose rows, with their deliveries
   * and attempts, fit in `rowLimit` (always the first, however many it takes along).
   */
  private messages(
    from: number,
    cutoff: number,
    q: number,
    rowLimit: number,
  ): { deleted: number; reached: number } {
    const picked = this.s.oldMessages.all(from, cutoff, cutoff, cutoff, q) as Row[];
    // None left before the cutoff: the run's later batches walk only what ages past it meanwhile.
    if (picked.length === 0) return { deleted: 0, reached: cutoff };
    const rows: Row[] = [];
    let size = 0;
    for (const row of picked) {
      size += 1 + this.count(this.s.deliveriesOf, row.id) + this.count(this.s.attemptsOf, row.id);
      if (rows.length > 0 && size > rowLimit) break;
      rows.push(row);
    }
    const ids = JSON.stringify(rows.map((r) => r.id));
    this.s.messageAttempts.run(ids);
    this.s.messageDeliveries.run(ids);
    // Messages made in the same millisecond as the last one may be left: the next batch starts
    // at that millisecond, not after it.
    return { deleted: this.s.messages.run(ids).changes, reached: Number(rows.at(-1)!.created_at) };
  }

  private count(statement: Statement, messageId: unknown): number {
    return Number((statement.get(messageId) as Row).n);
  }
}
