/** An alert as the API, the dashboard and operational webhooks show it. */
import type { AlertRecord } from "../store/port.js";

/** The `Alert` of GET /api/v1/alerts. */
export interface AlertView {
  id: string;
  rule: string;
  severity: "warning" | "critical";
  summary: string;
  endpointId: string | null;
  value: number;
  threshold: number;
  since: string;
  resolvedAt: string | null;
  /** Resolved because this alert carries on the same condition, not because it ended. */
  supersededBy: string | null;
}

/** The stored alert with its times as ISO 8601. */
export function alertView(a: AlertRecord): AlertView {
  return {
    id: a.id,
    rule: a.rule,
    severity: a.severity,
    summary: a.summary,
    endpointId: a.endpointId,
    value: a.value,
    threshold: a.threshold,
    since: new Date(a.since).toISOString(),
    resolvedAt: a.resolvedAt === null ? null : new Date(a.resolvedAt).toISOString(),
    supersededBy: a.supersededBy,
  };
}
