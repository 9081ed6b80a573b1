/** What metrics, alerts, the dashboard and failure drills read and keep through the port. */

/** The backlog and the dead-letter queue as gauges: what metrics, alerts and the dashboard read. */
export interface BacklogSnapshot {
  /** Pending deliveries, due or not. */
  pending: number;
  /** When the longest-waiting pending delivery due by `now` fell due, or null. */
  oldestDueAt: number | null;
  /** Open and replaying dead-letter records. */
  deadLetters: number;
  /** When the oldest open or replaying record was dead-lettered, or null. */
  oldestDeadLetterAt: number | null;
  /**
   * When a record last left the queue (resolved, by a replay or a person, or abandoned), through
   * any process sharing the store; null while none is kept.
   */
  lastDeadLetterClosedAt: number | null;
  /** Endpoints with open records, deepest first, at most `endpointLimit` of them. */
  byEndpoint: { endpointId: string; deadLetters: number; oldestDeadLetterAt: number }[];
}

/** An alert as kept across restarts: firing while `resolvedAt` is null. */
export interface AlertRecord {
  id: string;
  rule: string;
  severity: "warning" | "critical";
  summary: string;
  endpointId: string | null;
  value: number;
  threshold: number;
  since: number;
  resolvedAt: number | null;
  /**
   * Set when the alert was resolved because another alert carries on the same condition (two
   * workers' alerts for it became one when one of the workers left), not because it ended.
   */
  supersededBy: string | null;
}

/** What `saveAlerts` writes: the alerts `holder` evaluates, and how old a resolved one may be. */
export interface AlertSave {
  holder: string;
  alerts: readonly AlertRecord[];
  forgetResolvedBefore: number;
}

/** One step of a failure drill and how long it took. */
export interface DrillStep {
  name: string;
  passed: boolean;
  ms: number;
  detail: string;
}

/** A failure drill's result, as recorded. */
export interface DrillRun {
  id: string;
  trigger: "manual" | "schedule";
  startedAt: number;
  finishedAt: number;
  passed: boolean;
  steps: DrillStep[];
}
