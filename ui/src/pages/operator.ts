/** Operator-only views: alerts firing and recently resolved, and the system at a glance. */
import { maybe } from "../api.js";
import { h, link, table } from "../dom.js";
import { ago, percent, plural, seconds, span, unitsKept } from "../format.js";
import { live } from "../live.js";
import type { Alert, SystemStats } from "../types.js";

/**
 * An alert's value and threshold in its rule's units (see docs/observability.md): rates are 0–1,
 * ages are seconds; `dlq_stuck` counts records against a time without leaving.
 */
const RULE_VALUES: Record<string, (v: number, t: number) => string> = {
  retry_exhaustion_rate: (v, t) => `${percent(v)} (threshold ${percent(t)})`,
  endpoint_failing: (v, t) => `${percent(v)} succeeded (threshold ${percent(t)})`,
  dlq_oldest_age: (v, t) => `${seconds(v)} (threshold ${seconds(t)})`,
  queue_lag: (v, t) => `${seconds(v)} (threshold ${seconds(t)})`,
  dlq_stuck: (v, t) => `${plural(v, "record")}, none left for ${seconds(t)}`,
  drill_failing: (v, t) =>
    t > 0
      ? `${seconds(v)} since a drill passed (threshold ${seconds(t)})`
      : "the last drill failed",
};

const alertValue = (a: Alert): string =>
  RULE_VALUES[a.rule]?.(a.value, a.threshold) ??
  `${Number(a.value.toPrecision(3))} (threshold ${a.threshold})`;

const unavailable = (what: string) =>
  h("p", { class: "empty" }, `${what} are not available from this hookline.`);

export async function renderAlerts(page: HTMLElement): Promise<void> {
  const region = h("section", { "aria-label": "Alerts" });
  page.append(h("h1", {}, "Alerts"), region);
  const row = (a: Alert) => {
    // An endpoint's alert leads to the endpoint's page, where its attempts say what went wrong.
    const leads = a.endpointId && a.appId;
    return [
      h("span", { class: `badge severity-${a.severity}` }, a.severity),
      leads
        ? link(`/app/${a.appId}/endpoint/${a.endpointId}`, unitsKept(a.summary))
        : unitsKept(a.summary),
      alertValue(a),
      // A row with no link: its time is where the keyboard stops to show the row's exact times.
      ago(a.since, leads ? {} : { focusKey: `alert-since-${a.id}` }),
    ];
  };
  await live(
    region,
    () => maybe<{ firing: Alert[]; resolved: Alert[] }>("/api/v1/alerts"),
    (alerts) =>
      alerts
        ? [
            table("Firing", ["Severity", "What", "Value", "Since"], alerts.firing.map(row)),
            table(
              "Recently resolved",
              ["Severity", "What", "Value", "Since", "Resolved"],
              alerts.resolved.map((a) => [
                ...row(a),
                // Superseded: the condition did not end; another alert carries it on.
                a.supersededBy
                  ? [ago(a.resolvedAt), `, carried on as ${a.supersededBy}`]
                  : ago(a.resolvedAt),
              ]),
            ),
          ]
        : unavailable("Alerts"),
  );
}

export async function renderSystem(page: HTMLElement): Promise<void> {
  const region = h("section", { "aria-label": "System" });
  page.append(h("h1", {}, "System"), region);
  await live(
    region,
    () => maybe<SystemStats>("/api/v1/stats"),
    (s) =>
      s
        ? h(
            "dl",
            { class: "tiles" },
            tile("Queue depth", String(s.queueDepth)),
            tile("Queue lag", span(s.oldestDueAgeMs)),
            tile("Delivered last minute", String(s.deliveredLastMinute)),
            tile("Failed last minute", String(s.failedLastMinute)),
            tile("Dead letters open", String(s.dlqOpen)),
            tile("Oldest dead letter", span(s.dlqOldestAgeMs)),
          )
        : unavailable("System statistics"),
  );
}

const tile = (label: string, value: string) =>
  h("div", { class: "tile" }, h("dt", {}, label), h("dd", {}, value));
