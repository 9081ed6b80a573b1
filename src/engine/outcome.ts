/** Why an attempt got no HTTP response; `refused_target` means hookline's own policy refused the URL. */
export type TransportErrorClass =
  | "timeout"
  | "connection_refused"
  | "connection_reset"
  | "dns"
  | "tls"
  | "network"
  | "refused_target";

/** What an attempt's result means for the delivery. */
export type OutcomeClass = "success" | "rate_limited" | "retryable" | "permanent";

/** Statuses that end a delivery at once unless an endpoint configures its own set. */
export const DEFAULT_PERMANENT_STATUSES: readonly number[] = Object.freeze([
  400, 404, 405, 410, 413, 415, 422,
]);

/** One row of the classification table, for docs; `examples` are checked against classifyOutcome in tests. */
export interface StatusRule {
  match: string;
  outcome: OutcomeClass;
  why: string;
  examples: { status?: number; error?: TransportErrorClass }[];
}

/** The classification rules in the order classifyOutcome applies them. */
export const STATUS_TABLE: readonly StatusRule[] = Object.freeze([
  {
    match: "transport error: refused_target",
    outcome: "permanent",
    why: "hookline's network policy forbids this URL; retrying cannot change that",
    examples: [{ error: "refused_target" }],
  },
  {
    match: "transport error: timeout, connection_refused, connection_reset, dns, tls, network",
    outcome: "retryable",
    why: "the receiver may be down or restarting; it is usually back soon",
    examples: [{ error: "timeout" }, { error: "connection_refused" }, { error: "dns" }],
  },
  {
    match: "2xx",
    outcome: "success",
    why: "the receiver accepted the message",
    examples: [{ status: 200 }, { status: 204 }, { status: 299 }],
  },
  {
    match: "410 Gone",
    outcome: "permanent",
    why: "the receiver says the endpoint is gone for good; also disables the endpoint",
    examples: [{ status: 410 }],
  },
  {
    match: "the permanent set (default 400, 404, 405, 410, 413, 415, 422; configurable)",
    outcome: "permanent",
    why: "the receiver rejects this message itself; sending it again gets the same answer",
    examples: [{ status: 400 }, { status: 404 }, { status: 422 }],
  },
  {
    match: "429 Too Many Requests",
    outcome: "rate_limited",
    why: "the receiver wants us to slow down; Retry-After is considered",
    examples: [{ status: 429 }],
  },
  {
    match: "3xx",
    outcome: "retryable",
    why: "redirects are not followed (a signed request must not wander); counted as a failure",
    examples: [{ status: 301 }, { status: 307 }],
  },
  {
    match: "408, 425, 5xx",
    outcome: "retryable",
    why: "a timeout, too-early or server error is usually temporary",
    examples: [{ status: 408 }, { status: 425 }, { status: 500 }, { status: 503 }],
  },
  {
    match: "any other status",
    outcome: "retryable",
    why: "when in doubt, try again: the ladder and the window bound the cost",
    examples: [{ status: 401 }, { status: 403 }, { status: 409 }],
  },
]);

/** Classifies one attempt's result; a transport error wins over any status. */
export function classifyOutcome(
  r: { status?: number; error?: TransportErrorClass },
  permanentStatuses: ReadonlySet<number>,
): OutcomeClass {
  if (r.error !== undefined) return r.error === "refused_target" ? "permanent" : "retryable";
  const status = r.status;
  // Neither a status nor an error: something failed before we could say what; try again.
  if (status === undefined) return "retryable";
  if (status >= 200 && status <= 299) return "success";
  // 410 is permanent even when a custom set leaves it out: the receiver asked us to stop.
  if (status === 410 || permanentStatuses.has(status)) return "permanent";
  if (status === 429) return "rate_limited";
  // 3xx, 408, 425, 5xx and everything else: a failure worth retrying.
  return "retryable";
}

/** Whether a response should disable the endpoint outright (410 Gone only). */
export function disablesEndpoint(status: number | undefined): boolean {
  return status === 410;
}
