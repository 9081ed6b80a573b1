/** What metrics, alerts and drills read and keep: backlog gauges, alert states, drill results. */
import type pg from "pg";
import type { AlertRecord, AlertSave, BacklogSnapshot, DrillRun } from "../port.js";
import { alertFromRow } from "../row-mappers.js";
import { all, exec, one, tx } from "./database.js";

/** Observability queries; `PostgresStore` wraps each call in its error mapping. */
export class Observability {
  constructor(private readonly pool: pg.Pool) {}

  async backlogSnapshot(req: { now: number; endpointLimit: number }): Promise<BacklogSnapshot> {
    // Each of these walks a partial index of pending rows or open records, never history.
    const head = await one(
      this.pool,
      `SELECT
         (SELECT count(*) FROM deliveries WHERE state = 'pending') AS pending,
         (SELECT min(next_attempt_at) FROM deliveries
           WHERE state = 'pending' AND next_attempt_at <= $1) AS due,
         (SELECT count(*) FROM dead_letters WHERE state IN ('open', 'replaying')) AS dlq,
         (SELECT min(created_at) FROM dead_letters WHERE state IN ('open', 'replaying')) AS oldest,
         (SELECT max(updated_at) FROM dead_letters
           WHERE state IN ('resolved', 'abandoned')) AS closed`,
      [req.now],
    );
    const rows = await all(
      this.pool,
      `SELECT d.endpoint_id, d.open,
         (SELECT min(created_at) FROM dead_letters x
           WHERE x.endpoint_id = d.endpoint_id AND x.state IN ('open', 'replaying')) AS oldest
       FROM dead_letter_depth d WHERE d.open > 0 ORDER BY d.open DESC, d.endpoint_id LIMIT $1`,
      [req.endpointLimit],
    );
    return {
      pending: Number(head?.pending ?? 0),
      oldestDueAt: head?.due == null ? null : Number(head.due),
      deadLetters: Number(head?.dlq ?? 0),
      oldestDeadLetterAt: head?.oldest == null ? null : Number(head.oldest),
      lastDeadLetterClosedAt: head?.closed == null ? null : Number(head.closed),
      byEndpoint: rows.map((r) => ({
        endpointId: String(r.endpoint_id),
        deadLetters: Number(r.open),
        oldestDeadLetterAt: Number(r.oldest),
      })),
    };
  }

  async saveAlerts(req: AlertSave): Promise<string[]> {
    return tx(this.pool, async (conn) => {
      const refused: string[] = [];
      for (const a of req.alerts) {
        // An alert another worker took on (this one was declared dead meanwhile) is theirs now.
        const written = await one(
          conn,
          `INSERT INTO alerts (id, rule, severity, summary, endpoint_id, value, threshold, since,
             resolved_at, superseded_by, evaluated_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           ON CONFLICT (id) DO UPDATE SET summary = excluded.summary, value = excluded.value,
             resolved_at = excluded.resolved_at, superseded_by = excluded.superseded_by
           WHERE alerts.evaluated_by = excluded.evaluated_by
           RETURNING id`,
          [
            a.id,
            a.rule,
            a.severity,
            a.summary,
            a.endpointId,
            a.value,
            a.threshold,
            a.since,
            a.resolvedAt,
            a.supersededBy,
            req.holder,
          ],
        );
        if (!written) refused.push(a.id);
      }
      await exec(conn, "DELETE FROM alerts WHERE resolved_at < $1", [req.forgetResolvedBefore]);
      return refused;
    });
  }

  async adoptAlerts(holder: string): Promise<AlertRecord[]> {
    // The UPDATE takes a row only if its evaluator is still the one its snapshot read: of two
    // workers adopting at once, the one that waited on the other's row lock finds the row changed
    // and passes it over. Checking `workers` again would not do: it is read in the old snapshot,
    // where the other worker may not have joined yet.
    const rows = await all(
      this.pool,
      `WITH left_behind AS (
         SELECT a.id, a.evaluated_by FROM alerts a
         WHERE a.resolved_at IS NULL AND a.evaluated_by IS DISTINCT FROM $1
           AND NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = a.evaluated_by)
           AND (a.endpoint_id IS NULL OR NOT EXISTS (
             SELECT 1 FROM endpoint_owners o JOIN workers w ON w.id = o.worker_id
             WHERE o.endpoint_id = a.endpoint_id AND o.worker_id <> $1))
       )
       UPDATE alerts SET evaluated_by = $1 FROM left_behind l
       WHERE alerts.id = l.id AND alerts.evaluated_by IS NOT DISTINCT FROM l.evaluated_by
         AND alerts.resolved_at IS NULL
       RETURNING alerts.*`,
      [holder],
    );
    return rows.map(alertFromRow);
  }

  async listAlerts(q: { resolvedSince: number }): Promise<AlertRecord[]> {
    const rows = await all(
      this.pool,
      "SELECT * FROM alerts WHERE resolved_at IS NULL OR resolved_at >= $1 ORDER BY since DESC, id DESC",
      [q.resolvedSince],
    );
    return rows.map(alertFromRow);
  }

  async recordDrillRun(run: DrillRun, keep: number): Promise<void> {
    await tx(this.pool, async (conn) => {
      await exec(
        conn,
        "INSERT INTO drill_runs (id, trigger, started_at, finished_at, passed, steps) VALUES ($1, $2, $3, $4, $5, $6)",
        [run.id, run.trigger, run.startedAt, run.finishedAt, run.passed, JSON.stringify(run.steps)],
      );
      await exec(
        conn,
        "DELETE FROM drill_runs WHERE id NOT IN (SELECT id FROM drill_runs ORDER BY started_at DESC, id DESC LIMIT $1)",
        [keep],
      );
    });
  }

  async listDrillRuns(limit: number): Promise<DrillRun[]> {
    const rows = await all(
      this.pool,
      "SELECT * FROM drill_runs ORDER BY started_at DESC, id DESC LIMIT $1",
      [limit],
    );
    return rows.map((r) => ({
      id: String(r.id),
      trigger: r.trigger as DrillRun["trigger"],
      startedAt: Number(r.started_at),
      finishedAt: Number(r.finished_at),
      passed: r.passed === true,
      steps: r.steps as DrillRun["steps"],
    }));
  }

  async lastPassedDrillAt(): Promise<number | null> {
    const r = await one(this.pool, "SELECT max(started_at) AS at FROM drill_runs WHERE passed");
    return r?.at == null ? null : Number(r.at);
  }
}
