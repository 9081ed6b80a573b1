/** What metrics, alerts and drills read and keep: backlog gauges, alert states, drill results. */
import type { Database as Db } from "better-sqlite3";
import type { AlertRecord, AlertSave, BacklogSnapshot, DrillRun } from "../port.js";
import { alertFromRow } from "../row-mappers.js";
import type { Row } from "./rows.js";

/** Synchronous observability queries; `SqliteStore` wraps each call in its error mapping. */
export class Observability {
  constructor(private readonly db: Db) {}

  backlogSnapshot(req: { now: number; endpointLimit: number }): BacklogSnapshot {
    // Each of these walks a partial index of pending rows or open records, never history.
    const pending = this.db
      .prepare("SELECT count(*) AS n FROM deliveries WHERE state = 'pending'")
      .get() as Row;
    const due = this.db
      .prepare(
        "SELECT min(next_attempt_at) AS at FROM deliveries WHERE state = 'pending' AND next_attempt_at <= ?",
      )
      .get(req.now) as Row;
    // `closed`: the last entry of dead_letters_closed, whose predicate it repeats.
    const dlq = this.db
      .prepare(
        `SELECT count(*) AS n, min(created_at) AS at,
           (SELECT max(updated_at) FROM dead_letters
             WHERE state IN ('resolved', 'abandoned')) AS closed
         FROM dead_letters WHERE state IN ('open', 'replaying')`,
      )
      .get() as Row;
    const rows = this.db
      .prepare(
        `SELECT d.endpoint_id, d.open,
           (SELECT min(created_at) FROM dead_letters x
             WHERE x.endpoint_id = d.endpoint_id AND x.state IN ('open', 'replaying')) AS oldest
         FROM dead_letter_depth d WHERE d.open > 0 ORDER BY d.open DESC, d.endpoint_id LIMIT ?`,
      )
      .all(req.endpointLimit) as Row[];
    return {
      pending: Number(pending.n),
      oldestDueAt: due.at == null ? null : Number(due.at),
      deadLetters: Number(dlq.n),
      oldestDeadLetterAt: dlq.at == null ? null : Number(dlq.at),
      lastDeadLetterClosedAt: dlq.closed == null ? null : Number(dlq.closed),
      byEndpoint: rows.map((r) => ({
        endpointId: String(r.endpoint_id),
        deadLetters: Number(r.open),
        oldestDeadLetterAt: Number(r.oldest),
      })),
    };
  }

  saveAlerts(req: AlertSave): string[] {
    // An alert another evaluator holds is theirs (see the port); not written.
    const upsert = this.db.prepare(
      `INSERT INTO alerts (id, rule, severity, summary, endpoint_id, value, threshold, since,
         resolved_at, superseded_by, evaluated_by)
       VALUES (@id, @rule, @severity, @summary, @endpointId, @value, @threshold, @since,
         @resolvedAt, @supersededBy, @holder)
       ON CONFLICT (id) DO UPDATE SET summary = excluded.summary, value = excluded.value,
         resolved_at = excluded.resolved_at, superseded_by = excluded.superseded_by
       WHERE alerts.evaluated_by = excluded.evaluated_by
       RETURNING id`,
    );
    return this.db.transaction(() => {
      const refused: string[] = [];
      for (const a of req.alerts) {
        if (!upsert.get({ ...a, holder: req.holder })) refused.push(a.id);
      }
      this.db.prepare("DELETE FROM alerts WHERE resolved_at < ?").run(req.forgetResolvedBefore);
      return refused;
    })();
  }

  adoptAlerts(holder: string): AlertRecord[] {
    // One process serves this store: a firing alert it does not hold is from before a restart.
    const rows = this.db
      .prepare(
        "UPDATE alerts SET evaluated_by = ? WHERE resolved_at IS NULL AND evaluated_by IS NOT ? RETURNING *",
      )
      .all(holder, holder) as Row[];
    return rows.map(alertFromRow);
  }

  listAlerts(q: { resolvedSince: number }): AlertRecord[] {
    const rows = this.db
      .prepare(
        "SELECT * FROM alerts WHERE resolved_at IS NULL OR resolved_at >= ? ORDER BY since DESC, id DESC",
      )
      .all(q.resolvedSince) as Row[];
    return rows.map(alertFromRow);
  }

  recordDrillRun(run: DrillRun, keep: number): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          "INSERT INTO drill_runs (id, trigger, started_at, finished_at, passed, steps) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .run(
          run.id,
          run.trigger,
          run.startedAt,
          run.finishedAt,
          run.passed ? 1 : 0,
          JSON.stringify(run.steps),
        );
      this.db
        .prepare(
          "DELETE FROM drill_runs WHERE id NOT IN (SELECT id FROM drill_runs ORDER BY started_at DESC, id DESC LIMIT ?)",
        )
        .run(keep);
    })();
  }

  listDrillRuns(limit: number): DrillRun[] {
    const rows = this.db
      .prepare("SELECT * FROM drill_runs ORDER BY started_at DESC, id DESC LIMIT ?")
      .all(limit) as Row[];
    return rows.map((r) => ({
      id: String(r.id),
      trigger: r.trigger as DrillRun["trigger"],
      startedAt: Number(r.started_at),
      finishedAt: Number(r.finished_at),
      passed: Number(r.passed) === 1,
      steps: JSON.parse(String(r.steps)) as DrillRun["steps"],
    }));
  }

  lastPassedDrillAt(): number | null {
    const r = this.db
      .prepare("SELECT max(started_at) AS at FROM drill_runs WHERE passed = 1")
      .get() as Row;
    return r.at == null ? null : Number(r.at);
  }
}
