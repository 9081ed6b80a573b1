import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { DeadLetterQueue } from "../dlq/service.js";
import type { EngineControl } from "../engine/control.js";
import type { EngineEvents } from "../engine/events.js";
import type { PolicyDefaults } from "../engine/policy.js";
import type { Observability } from "../observability/service.js";
import type { Store } from "../store/port.js";

/** What the HTTP API needs from the rest of hookline, passed in once by the entry point. */
export interface ApiDeps {
  store: Store;
  engine: EngineControl;
  /** The dead-letter queue's operations (replays, decisions, bulk replay jobs). */
  dlq: DeadLetterQueue;
  config: Readonly<Config>;
  clock: Clock;
  /**
   * The configured admin token, registered (hashed) as the bootstrap admin token on start; null
   * when there is none (a worker started without HOOKLINE_ADMIN_TOKEN).
   */
  adminToken: string | null;
  policyDefaults: PolicyDefaults;
  /** The domain event bus: the API announces what people do that others listen for. */
  events?: EngineEvents;
  /** Metrics, alerts, operational webhooks, drills; absent in a process that runs none. */
  observability?: Observability;
  /** Where requests that failed on hookline's side are logged (pino fits); unset, nowhere. */
  logger?: ApiLogger;
}

/** What the API logs: requests answered 5xx, with their cause. */
export interface ApiLogger {
  error(obj: object, msg: string): void;
}
