/** What both adapters write into a dead-letter record's text fields, worded once. */
import type { DeadLetterEvent } from "../domain/types.js";
import type { DeadLetterChange, DeliveryOutcome } from "./port.js";

/** The part of an attempt (as recorded, or as read back) a record's final answer is made of. */
export interface FinalAnswerSource {
  status: number | null;
  error: string | null;
  errorDetail: string | null;
}

/**
 * A record's `final_status` and `final_error`: the last answer its delivery got; for a redirect,
 * `final_error` says where it pointed ("Location: https://…"). A delivery ended
 * without a request (its endpoint disabled, an open circuit holding its retry past the window, a
 * policy with no room left) passes the last attempt it did make, so the record still says what
 * the receiver last answered; null for one that never sent a request at all.
 */
export function finalAnswer(a: FinalAnswerSource | null): {
  status: number | null;
  error: string | null;
} {
  return {
    status: a?.status ?? null,
    error: a?.error
      ? `${a.error}${a.errorDetail ? `: ${a.errorDetail}` : ""}`
      : (a?.errorDetail ?? null),
  };
}

/** How a replay's result begins when it ended without a request. */
const UNSENT = "no request was sent: ";

/**
 * "succeeded: HTTP 200 in 12 ms", "failed: connection_refused (…) in 3 ms", as history says it;
 * "no request was sent: endpoint disabled" for a replay that ended before its request went out
 * (a single replay's answer gives that line as its `detail`).
 */
export function describeResult(o: DeliveryOutcome): string {
  const a = o.attempt;
  if (!a) return `${UNSENT}${o.next.kind === "dead" ? o.next.reason : "-"}`;
  const verdict = o.next.kind === "succeeded" ? "succeeded" : "failed";
  const what = `${a.status !== null ? `HTTP ${a.status}` : (a.error ?? "error")}${
    a.errorDetail ? ` (${a.errorDetail})` : ""
  }`;
  const asked = o.askedToWait ? `; ${o.askedToWait}` : "";
  return `${verdict}: ${what} in ${a.durationMs} ms${asked}`;
}

/**
 * Why a replay ended without a request, from its history entry's result (see
 * {@link describeResult}): "endpoint disabled", as a delivery given up so says in its record.
 */
export function unsentReason(result: string): string {
  return result.startsWith(UNSENT) ? result.slice(UNSENT.length) : result;
}

/**
 * The Retry-After part of a replay's history entry (see {@link describeResult}), or null: "the
 * receiver asked to wait 30 s", "… asked for no wait", and "… asked to be tried again at once",
 * which an older hookline wrote for no wait, each followed by "(Retry-After)".
 */
export function askedToWaitIn(result: string): string | null {
  return (
    /; (the receiver asked (?:to wait .*|for no wait|to be tried again at once) \(Retry-After\))$/.exec(
      result,
    )?.[1] ?? null
  );
}

/**
 * A record resolved without a replay, because the resend of `o` delivered its message: the change
 * announced, by `actor` (hookline), whose detail is also the record's history entry.
 */
export function resolvedByResend(id: string, o: DeliveryOutcome, actor: string): DeadLetterChange {
  return {
    kind: "resolved",
    deadLetterId: id,
    appId: o.appId,
    endpointId: o.endpointId,
    deliveryId: o.deliveryId,
    actor,
    at: o.at,
    detail: `resolved: a resend delivered the message (delivery ${o.deliveryId})`,
  };
}

/**
 * A bulk replay taken back before it was sent (its job cancelled or stopped), from the job item's
 * row with its record's application and endpoint: the change announced, whose detail is also the
 * record's history entry.
 */
export function withdrawnChange(
  item: Record<string, unknown>,
  deliveryId: string,
  actor: string,
  at: number,
  detail: string,
): DeadLetterChange {
  return {
    kind: "replay_withdrawn",
    deadLetterId: String(item.dead_letter_id),
    appId: String(item.app_id),
    endpointId: String(item.endpoint_id),
    deliveryId,
    actor,
    at,
    detail,
  };
}

/**
 * How a replay ended: delivered, failed at the receiver, or withdrawn, ended without a request
 * (its endpoint disabled meanwhile), which tells nothing of the receiver. Its job's item, the
 * record's history, the change announced and a single replay's answer all read it alike.
 */
export type ReplayEnding = "succeeded" | "failed" | "withdrawn";

export function replayEnding(delivered: boolean, sent: boolean): ReplayEnding {
  return delivered ? "succeeded" : sent ? "failed" : "withdrawn";
}

/** The record's history entry and the change announced, for each way a replay ends. */
export const REPLAY_ENDED: Readonly<
  Record<ReplayEnding, { action: DeadLetterEvent["action"]; kind: DeadLetterChange["kind"] }>
> = {
  succeeded: { action: "replayed", kind: "replay_succeeded" },
  failed: { action: "replayed", kind: "replay_failed" },
  withdrawn: { action: "replay_withdrawn", kind: "replay_withdrawn" },
};
