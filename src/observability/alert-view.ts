/** An alert as the API, the dashboard and operational webhooks show it. */
import type { AlertRecord, Store } from "../store/port.js";

/** The `Alert` of GET /api/v1/alerts. */
export interface AlertView {
  id: string;
  rule: string;
  severity: "warning" | "critical";
  summary: string;
  endpointId: string | null;
  /** The endpoint's application, so a reader can go to the endpoint; null without one (or gone). */
  appId: string | null;
  value: number;
  threshold: number;
  since: string;
  resolvedAt: string | null;
  /** Resolved because this alert carries on the same condition, not because it ended. */
  supersededBy: string | null;
}

/** The stored alert with its times as ISO 8601, and its endpoint's application. */
export function alertView(a: AlertRecord, appId: string | null): AlertView {
  return {
    id: a.id,
    rule: a.rule,
    severity: a.severity,
    summary: a.summary,
    endpointId: a.endpointId,
    appId,
    value: a.value,
    threshold: a.threshold,
    since: new Date(a.since).toISOString(),
    resolvedAt: a.resolvedAt === null ? null : new Date(a.resolvedAt).toISOString(),
    supersededBy: a.supersededBy,
  };
}

/** The views of `alerts`, each endpoint read once. */
export async function alertViews(
  store: Store,
  alerts: readonly AlertRecord[],
): Promise<AlertView[]> {
  const ids = new Set(alerts.flatMap((a) => (a.endpointId ? [a.endpointId] : [])));
  const apps = new Map<string, string | null>();
  await Promise.all(
    [...ids].map(async (id) => apps.set(id, (await store.getEndpoint(id))?.appId ?? null)),
  );
  return alerts.map((a) => alertView(a, a.endpointId ? (apps.get(a.endpointId) ?? null) : null));
}
