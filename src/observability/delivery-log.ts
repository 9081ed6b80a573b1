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
      if (e.state === "dead") logger.warn(line, "delivery given up");
      else if (e.state === "succeeded") logger.debug(line, "delivery succeeded");
      else logger.info(line, "attempt failed; retry scheduled");
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
