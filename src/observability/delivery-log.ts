/**
 * One structured log line per committed attempt, carrying the message, delivery, endpoint and
 * application ids. Never the payload, the URL (it may hold a token), the response body or a
 * secret: only what identifies the delivery and what came of it. A circuit's reason is logged
 * without a redirect's target, which most often repeats the URL.
 */
import type { Logger } from "pino";
import type { EngineEvents } from "../engine/events.js";
import { withoutRedirectTarget } from "../engine/sender.js";

// How each kind of delivery event is logged.
const GIVEN_UP = { level: "warn", what: "delivery given up" } as const;
const SUCCEEDED = { level: "debug", what: "delivery succeeded" } as const;
const RETRYING = { level: "info", what: "attempt failed; retry scheduled" } as const;

/** Subscribes the delivery log to the event bus. */
export function logDeliveries(events: EngineEvents, logger: Logger): void {
  events.on((e) => {
    if (e.type === "delivery") {
      const { level, what } =
        e.state === "dead" ? GIVEN_UP : e.state === "succeeded" ? SUCCEEDED : RETRYING;
      // Successes are logged at debug: at the usual level, most deliveries build no line at all.
      if (!logger.isLevelEnabled(level)) return;
      const a = e.attempt;
      const line = {
        messageId: e.messageId,
        deliveryId: e.deliveryId,
        endpointId: e.endpointId,
        appId: e.appId,
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
      logger[level](line, what);
    } else if (e.type === "circuit") {
      const t = e.transition;
      logger.warn(
        {
          endpointId: e.endpointId,
          from: t.from,
          to: t.to,
          reason: withoutRedirectTarget(t.reason),
          nextProbeAt: e.nextProbeAt === null ? undefined : new Date(e.nextProbeAt).toISOString(),
        },
        "circuit",
      );
    } else if (e.type === "endpoint.disabled") {
      logger.warn({ endpointId: e.endpointId, reason: e.reason }, "endpoint disabled");
    }
  });
}
