/** Svix MessageAttemptOut and MessageEndpointOut, with hookline's extra fields. */
import { z } from "zod";
import type { Attempt, CircuitRecord, Delivery, Endpoint, Message } from "../../domain/types.js";
import type { ResolvedPolicy } from "../../engine/policy.js";
import type { EndpointMessage } from "../../store/port.js";
import { circuitOut, endpointBase } from "../endpoint-view.js";
import { endsUnsent, type EndsUnsent } from "../ends-unsent.js";
import { nextAttemptOf } from "../next-attempt.js";
import { Timestamp, extension, iso } from "./common.js";
import { EndpointOut } from "./endpoint.js";
import { MessageOut, messageJson } from "./message.js";
import {
  RetryAfterIgnoredOut,
  RetryAfterOut,
  retryAfterIgnoredOut,
  retryAfterOut,
} from "./retry-after.js";

/** Svix message status numbers: 0 success, 1 pending, 2 fail, 3 sending. */
const STATUS_TEXT = ["success", "pending", "fail", "sending", "canceled"] as const;

export const MessageAttemptOut = z.object({
  id: z.string(),
  msgId: z.string(),
  endpointId: z.string(),
  url: z.string(),
  response: z.string(),
  responseStatusCode: z.int(),
  responseDurationMs: z.int(),
  status: z.int().min(0).max(4),
  statusText: z.enum(STATUS_TEXT),
  triggerType: z.int().min(0).max(1),
  timestamp: Timestamp,
  msg: MessageOut.optional(),
  trigger: extension(z.enum(["first", "retry", "manual", "probe", "replay"])),
  error: extension(z.string().nullable()),
  errorDetail: extension(z.string().nullable()),
  outcome: extension(z.enum(["success", "rate_limited", "retryable", "permanent"])),
  retryAfter: extension(RetryAfterOut),
  retryAfterIgnored: extension(RetryAfterIgnoredOut),
});

/** MessageAttemptOut as JSON text, with the message (payload spliced) when given. */
export function attemptJson(
  a: Attempt,
  options: { withContent: boolean; msg?: Message | null },
): string {
  const status = a.outcome === "success" ? 0 : 2;
  const head = JSON.stringify({
    id: a.id,
    msgId: a.messageId,
    endpointId: a.endpointId,
    url: a.url,
    response: options.withContent ? a.responseSnippet : "",
    responseStatusCode: a.status ?? 0,
    responseDurationMs: a.durationMs,
    status,
    statusText: STATUS_TEXT[status],
    triggerType: a.trigger === "manual" || a.trigger === "replay" ? 1 : 0,
    timestamp: iso(a.at),
    trigger: a.trigger,
    error: a.error,
    errorDetail: a.errorDetail,
    outcome: a.outcome,
    retryAfter: retryAfterOut(a.retryAfterMs),
    retryAfterIgnored: retryAfterIgnoredOut(a.retryAfterIgnored),
  });
  if (!options.msg) return head;
  return `${head.slice(0, -1)},"msg":${messageJson(options.msg, options.withContent)}}`;
}

/** When a waiting delivery's request goes (api/next-attempt.ts). */
const NextAttempt = Timestamp.nullable().describe(
  "When the waiting delivery's next request goes, as far as hookline knows: its own time, or its " +
    "endpoint's next probe when the circuit is open and that is later; null unless pending",
);

export const MessageEndpointOut = EndpointOut.pick({
  id: true,
  uid: true,
  url: true,
  description: true,
  version: true,
  disabled: true,
  filterTypes: true,
  channels: true,
  rateLimit: true,
  throttleRate: true,
  metadata: true,
  createdAt: true,
  updatedAt: true,
  // Why deliveries to it wait, as the endpoint's own page says: a message's page says it for each
  // destination from this one answer, without reading each endpoint.
  disabledReason: true,
  circuit: true,
}).extend({
  status: z.int().min(0).max(4),
  statusText: z.enum(STATUS_TEXT),
  nextAttempt: NextAttempt,
  delivery: extension(
    z.object({
      id: z.string(),
      state: z.enum(["pending", "inflight", "succeeded", "dead"]),
      origin: z.enum(["message", "resend", "replay"]),
      attemptCount: z.int(),
      reason: z
        .string()
        .nullable()
        .describe(
          "Why hookline gave up on the delivery, as its dead-letter record says, or past the " +
            "depth cap its tombstone (the attempts alone do not tell a delivery given up unsent, " +
            "its endpoint disabled while a retry waited, from one whose retries ran out); for a " +
            "replay that ended without a request (withdrawn: its endpoint was disabled while it " +
            "waited), why, as its record's history says; null while it is not given up, for a " +
            "replay that was sent (its one attempt says how it went), or once retention has " +
            "taken the record",
        ),
      endsUnsent: z
        .object({ at: Timestamp, reason: z.string() })
        .nullable()
        .describe(
          "Of a waiting delivery hookline will give up without another attempt, as things " +
            "stand: when (its own next attempt's time, at which its endpoint's open circuit " +
            "would hold it until a probe past its retry window) and the reason its dead-letter " +
            "record will give; null otherwise",
        ),
    }),
  ),
});

const DELIVERY_STATUS: Record<Delivery["state"], number> = {
  succeeded: 0,
  pending: 1,
  dead: 2,
  inflight: 3,
};

/**
 * hookline's `deliveryStatus` of a listed message (`with_status=true`): how many of its endpoints
 * stand at each status, by its latest delivery to each, and one word for them all: `fail` if any
 * failed, else `pending` if any waits for an attempt, else `sending` if any is being sent, else
 * `success` if it reached every endpoint it went to; `none` if it went to no endpoint.
 */
export const MessageDeliveryStatus = z.object({
  statusText: z.enum(["fail", "pending", "sending", "success", "none"]),
  success: z.int(),
  pending: z.int(),
  sending: z.int(),
  fail: z.int(),
});

/** Svix MessageOut with hookline's `deliveryStatus`, when asked for. */
export const MessageWithStatusOut = MessageOut.extend({
  deliveryStatus: extension(MessageDeliveryStatus).optional(),
});

/** A message's `deliveryStatus` from its endpoints counted by delivery state. */
export function deliveryStatusOf(
  counts: Record<Delivery["state"], number>,
): z.output<typeof MessageDeliveryStatus> {
  const n = {
    success: counts.succeeded,
    pending: counts.pending,
    sending: counts.inflight,
    fail: counts.dead,
  };
  const statusText = (["fail", "pending", "sending", "success"] as const).find((s) => n[s] > 0);
  return { statusText: statusText ?? "none", ...n };
}

/** Svix EndpointMessageOut: a message sent to an endpoint, and where it stands there. */
export const EndpointMessageOut = MessageOut.extend({
  status: z.int().min(0).max(4),
  statusText: z.enum(STATUS_TEXT),
  nextAttempt: NextAttempt,
});

/** The delivery state a Svix status number stands for (none: 4, canceled). */
export const stateOf = (status: number): Delivery["state"] | undefined =>
  (Object.keys(DELIVERY_STATUS) as Delivery["state"][]).find((s) => DELIVERY_STATUS[s] === status);

/**
 * EndpointMessageOut as JSON text, the payload spliced in as stored; `ep` and `circuit` are the
 * endpoint's, which may hold a waiting delivery past its own time.
 */
export function endpointMessageJson(
  m: EndpointMessage,
  withContent: boolean,
  ep: Endpoint,
  circuit: CircuitRecord,
  policy: () => ResolvedPolicy,
): string {
  const status = DELIVERY_STATUS[m.state];
  const ends = endsUnsent(m, ep, circuit, policy);
  const tail = JSON.stringify({
    status,
    statusText: STATUS_TEXT[status],
    nextAttempt:
      m.state === "pending" ? iso(nextAttemptOf(m.nextAttemptAt, ep, circuit, ends)) : null,
  });
  return `${messageJson(m.message, withContent).slice(0, -1)},${tail.slice(1)}`;
}

/** An endpoint, its circuit, and where the message's latest delivery to it stands. */
export function messageEndpointOut(
  ep: Endpoint,
  circuit: CircuitRecord,
  d: Delivery,
  reason: string | null,
  ends: EndsUnsent | null,
) {
  const status = DELIVERY_STATUS[d.state];
  return {
    ...endpointBase(ep),
    status,
    statusText: STATUS_TEXT[status],
    nextAttempt:
      d.state === "pending" ? iso(nextAttemptOf(d.nextAttemptAt, ep, circuit, ends)) : null,
    disabledReason: ep.disabledReason,
    circuit: circuitOut(circuit),
    delivery: {
      id: d.id,
      state: d.state,
      origin: d.origin,
      attemptCount: d.attemptCount,
      reason: d.state === "dead" ? reason : null,
      endsUnsent: ends && { at: iso(ends.at), reason: ends.reason },
    },
  };
}
