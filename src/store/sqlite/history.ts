/** What happened to deliveries, as operators read it: circuits, stats, attempts. */
import type { Database as Db } from "better-sqlite3";
import type { Attempt, CircuitRecord, EndpointStats } from "../../domain/types.js";
import type { CircuitTransition } from "../../engine/breaker.js";
import { firstIdAt } from "../../ids.js";
import type { AttemptQuery, Page } from "../port.js";
import { messageConditions, paginate } from "./pagination.js";
import { healthOf, statsFromRow, type EndpointHealthRead } from "../endpoint-stats.js";
import { attemptFromRow, circuitFromRow, type Row } from "./rows.js";
import type { HistoryStatements } from "./statements.js";

/** Synchronous read models and circuit snapshots; `SqliteStore` wraps each call in its error mapping. */
export class History {
  constructor(
    private readonly db: Db,
    private readonly s: HistoryStatements,
  ) {}

  // ---- circuits and stats -------------------------------------------------------------------

  saveCircuit(endpointId: string, c: CircuitRecord, transition: CircuitTransition | null): void {
    this.db.transaction(() => {
      this.s.saveCircuit.run({
        id: endpointId,
        state: c.state,
        since: c.since,
        reason: c.reason,
        probe: c.nextProbeAt,
        reopen: c.reopenCount,
        opened: c.openedAt ?? null,
      });
      if (transition) {
        this.s.insertTransition.run(
          endpointId,
          transition.from,
          transition.to,
          transition.at,
          transition.reason,
        );
      }
    })();
  }

  bringProbeForward(endpointId: string, at: number): boolean {
    return this.db.transaction(() => {
      const open = this.s.probeDueAfter.get({ id: endpointId, at }) as Row | undefined;
      if (!open) return false;
      this.s.setProbe.run({ id: endpointId, at });
      this.s.heldForProbe.run({ id: endpointId, at, probe: Number(open.next_probe_at) });
      return true;
    })();
  }

  getCircuit(endpointId: string): CircuitRecord | null {
    const row = this.s.getCircuit.get(endpointId) as Row | undefined;
    return row ? circuitFromRow(row) : null;
  }

  listUnclosedCircuits(limit: number): { endpointId: string; circuit: CircuitRecord }[] {
    const rows = this.s.unclosedCircuits.all(limit) as Row[];
    return rows.map((r) => ({ endpointId: String(r.endpoint_id), circuit: circuitFromRow(r) }));
  }

  listCircuitTransitions(
    endpointId: string,
    limit: number,
  ): (CircuitTransition & { endpointId: string })[] {
    const rows = this.s.transitions.all(endpointId, limit) as Row[];
    return rows.map((r) => ({
      endpointId,
      from: r.from_state as CircuitTransition["from"],
      to: r.to_state as CircuitTransition["to"],
      at: Number(r.at),
      reason: String(r.reason),
    }));
  }

  getEndpointStats(endpointId: string): EndpointStats {
    return statsFromRow(this.s.getStats.get(endpointId) as Row | undefined);
  }

  getCircuits(ids: string[]): Map<string, CircuitRecord> {
    const rows = this.s.circuitsOf.all(JSON.stringify(ids)) as Row[];
    return new Map(rows.map((r) => [String(r.endpoint_id), circuitFromRow(r)]));
  }

  getEndpointsHealth(ids: string[]): Map<string, EndpointHealthRead> {
    const list = JSON.stringify(ids);
    return healthOf(
      ids,
      this.s.circuitsOf.all(list) as Row[],
      this.s.statsOf.all(list) as Row[],
      circuitFromRow,
    );
  }

  // ---- attempts -----------------------------------------------------------------------------

  listAttempts(q: AttemptQuery): Page<Attempt> {
    const where = ["app_id = ?"];
    const params: unknown[] = [q.appId];
    if (q.endpointId) {
      where.push("endpoint_id = ?");
      params.push(q.endpointId);
    }
    if (q.messageId) {
      where.push("message_id = ?");
      params.push(q.messageId);
    }
    if (q.outcome === "success") where.push("outcome = 'success'");
    if (q.outcome === "fail") where.push("outcome <> 'success'");
    if (q.before !== undefined) {
      where.push("at < ?");
      params.push(q.before);
    }
    if (q.after !== undefined) {
      // And from the first id made after it on (see firstIdAt): by time alone, the list walked
      // every attempt before it (ascending) or after it (descending).
      where.push("at > ?", "id >= ?");
      params.push(q.after, firstIdAt("atmpt", q.after + 1));
    }
    if (q.statusCodeClass === 0) where.push("status IS NULL");
    else if (q.statusCodeClass !== undefined) {
      where.push("status >= ? AND status < ?");
      params.push(q.statusCodeClass, q.statusCodeClass + 100);
    }
    // The message's own fields: one lookup by primary key per attempt.
    const ofMessage = messageConditions(q, "m");
    if (ofMessage.where.length) {
      where.push(
        `EXISTS (SELECT 1 FROM messages m WHERE m.id = attempts.message_id
          AND ${ofMessage.where.join(" AND ")})`,
      );
      params.push(...ofMessage.params);
    }
    return paginate(
      this.db,
      { select: "SELECT * FROM attempts", where, params },
      "id",
      { ...q, order: q.order ?? "descending" },
      attemptFromRow,
      (a) => a.id,
    );
  }

  findAttempt(appId: string, attemptId: string): Attempt | null {
    const row = this.s.findAttempt.get(attemptId, appId) as Row | undefined;
    return row ? attemptFromRow(row) : null;
  }
}
