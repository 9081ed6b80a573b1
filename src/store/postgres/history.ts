/** What happened to deliveries, as operators read it: circuits, stats, attempts. */
import type pg from "pg";
import type { Attempt, CircuitRecord, EndpointStats } from "../../domain/types.js";
import type { CircuitTransition } from "../../engine/breaker.js";
import { firstIdAt } from "../../ids.js";
import type { AttemptQuery, Page } from "../port.js";
import { all, exec, one, Params, tx } from "./database.js";
import { messageConditions, paginate } from "./pagination.js";
import { healthOf, statsFromRow, type EndpointHealthRead } from "../endpoint-stats.js";
import { attemptFromRow, circuitFromRow } from "./rows.js";
import { HISTORY as S } from "./statements.js";

/** Read models and circuit snapshots; `PostgresStore` wraps each call in its error mapping. */
export class History {
  constructor(private readonly pool: pg.Pool) {}

  // ---- circuits and stats -------------------------------------------------------------------

  async saveCircuit(
    endpointId: string,
    c: CircuitRecord,
    transition: CircuitTransition | null,
  ): Promise<void> {
    const snapshot = [
      endpointId,
      c.state,
      c.since,
      c.reason,
      c.nextProbeAt,
      c.reopenCount,
      c.openedAt ?? null,
    ];
    if (!transition) {
      await exec(this.pool, S.saveCircuit, snapshot);
      return;
    }
    await tx(this.pool, async (conn) => {
      await exec(conn, S.saveCircuit, snapshot);
      await exec(conn, S.insertTransition, [
        endpointId,
        transition.from,
        transition.to,
        transition.at,
        transition.reason,
      ]);
    });
  }

  bringProbeForward(endpointId: string, at: number): Promise<boolean> {
    return tx(this.pool, async (c) => {
      const open = await one(c, S.probeDueAfter, [endpointId, at]);
      if (!open) return false;
      await exec(c, S.setProbe, [endpointId, at]);
      await exec(c, S.heldForProbe, [endpointId, at, Number(open.next_probe_at)]);
      return true;
    });
  }

  async getCircuit(endpointId: string): Promise<CircuitRecord | null> {
    const row = await one(this.pool, S.getCircuit, [endpointId]);
    return row ? circuitFromRow(row) : null;
  }

  async listUnclosedCircuits(
    limit: number,
  ): Promise<{ endpointId: string; circuit: CircuitRecord }[]> {
    const rows = await all(this.pool, S.unclosedCircuits, [limit]);
    return rows.map((r) => ({ endpointId: String(r.endpoint_id), circuit: circuitFromRow(r) }));
  }

  async listCircuitTransitions(
    endpointId: string,
    limit: number,
  ): Promise<(CircuitTransition & { endpointId: string })[]> {
    const rows = await all(this.pool, S.transitions, [endpointId, limit]);
    return rows.map((r) => ({
      endpointId,
      from: r.from_state as CircuitTransition["from"],
      to: r.to_state as CircuitTransition["to"],
      at: Number(r.at),
      reason: String(r.reason),
    }));
  }

  async getEndpointStats(endpointId: string): Promise<EndpointStats> {
    return statsFromRow(await one(this.pool, S.getStats, [endpointId]));
  }

  async getCircuits(ids: string[]): Promise<Map<string, CircuitRecord>> {
    const rows = await all(this.pool, S.circuitsOf, [ids]);
    return new Map(rows.map((r) => [String(r.endpoint_id), circuitFromRow(r)]));
  }

  async getEndpointsHealth(ids: string[]): Promise<Map<string, EndpointHealthRead>> {
    const [circuits, stats] = await Promise.all([
      all(this.pool, S.circuitsOf, [ids]),
      all(this.pool, S.statsOf, [ids]),
    ]);
    return healthOf(ids, circuits, stats, circuitFromRow);
  }

  // ---- attempts -----------------------------------------------------------------------------

  listAttempts(q: AttemptQuery): Promise<Page<Attempt>> {
    const params = new Params();
    const where = [`app_id = ${params.add(q.appId)}`];
    if (q.endpointId) where.push(`endpoint_id = ${params.add(q.endpointId)}`);
    if (q.messageId) where.push(`message_id = ${params.add(q.messageId)}`);
    if (q.outcome === "success") where.push("outcome = 'success'");
    if (q.outcome === "fail") where.push("outcome <> 'success'");
    if (q.before !== undefined) where.push(`at < ${params.add(q.before)}`);
    if (q.after !== undefined) {
      // And from the first id made after it on (see firstIdAt): by time alone, the list walked
      // every attempt before it (ascending) or after it (descending).
      where.push(`at > ${params.add(q.after)}`);
      where.push(`id >= ${params.add(firstIdAt("atmpt", q.after + 1))}`);
    }
    if (q.statusCodeClass === 0) where.push("status IS NULL");
    else if (q.statusCodeClass !== undefined) {
      const from = q.statusCodeClass;
      where.push(`status >= ${params.add(from)} AND status < ${params.add(from + 100)}`);
    }
    // The message's own fields: one lookup by primary key per attempt.
    const ofMessage = messageConditions(q, "m", params);
    if (ofMessage.length) {
      where.push(
        `EXISTS (SELECT 1 FROM messages m WHERE m.id = attempts.message_id
          AND ${ofMessage.join(" AND ")})`,
      );
    }
    return paginate(
      this.pool,
      { select: "SELECT * FROM attempts", where, params },
      "id",
      { ...q, order: q.order ?? "descending" },
      attemptFromRow,
      (a) => a.id,
    );
  }

  async findAttempt(appId: string, attemptId: string): Promise<Attempt | null> {
    const row = await one(this.pool, S.findAttempt, [attemptId, appId]);
    return row ? attemptFromRow(row) : null;
  }
}
