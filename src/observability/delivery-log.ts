/**
 * One structured log line per committed attempt, carrying the message, delivery, endpoint and
 * application ids. Never the payload, the URL (it may hold a token), the response body or a
 * secret: only what identifies the delivery and what came of it.
 */
import type { Logger } from "pino";
import type { EngineEvents } from "../engine/events.js";

/** Subscribes the delivery log to the event bus. */
export function logDeliveries(events: EngineEvents, logger: Logger): void {
  events.on((e) => {
    if (e.type === "delivery") {
      const level = e.state === "dead" ? "warn" : e.state === "succeeded" ? "debug" : "info";
      // Successes are logged at debug: at the usual level, most deliveries build no line at all.
      if (!logger.isLevelEnabled(level)) return;
      const a = e.attempt;
      const line = {
        messageId: e.messageId,
        deliveryId: e.deliveryId,
        endpointId: e.endpointId,
        appId: a?.appId,
        attemptId: a?.id,
        attemptNumber: e.attemptNumber,
        trigger: a?.trigger,
        status: a?.status,
        error: a?.error,
        durationMs: a?.durationMs,
        state: e.state,
        nextAttemptAt:
          e.nextAttemptAt === null ? undefined : new Date(e.nextAttemptAt).toISOString(),
        failureClass: e.failureClass ?? undefined,
      };
      const what =
        level === "warn"
          ? "delivery given up"
          : level === "debug"
            ? "delivery succeeded"
            : "attempt failed; retry scheduled";
      logger[level](line, what);
    } else if (e.type === "circuit") {
      const t = e.transition;
      logger.warn(
        { endpointId: e.endpointId, from: t.from, to: t.to, reason: t.reason },
        "circuit",
      );
    } else if (e.type === "endpoint.disabled") {
      logger.warn({ endpointId: e.endpointId, reason: e.reason }, "endpoint disabled");
    }
  });
}
