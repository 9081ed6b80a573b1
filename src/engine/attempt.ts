/**
 * One attempt of one delivery: sign it, send it, let the breaker judge the result, and decide what
 * follows (decide.ts). The engine records the outcome and acts on the transition; nothing here
 * touches the store.
 */
import { performance } from "node:perf_hooks";
import type { Clock, Random } from "../clock.js";
import type { IgnoredRetryAfter } from "../domain/types.js";
import { newId } from "../ids.js";
import {
  activeKeys,
  isSignatureHeaderName,
  signatureHeaders,
  type SignatureHeaders,
} from "../signing/sign.js";
import type { ClaimedDelivery, DeliveryOutcome } from "../store/port.js";
import type { CircuitTransition } from "./breaker.js";
import { decideNext, describe } from "./decide.js";
import { formatDuration } from "./ladder.js";
import type { RetryAfterDecision } from "./ladder.js";
import { decideRetryAfter, retryAfterAt } from "./retry-after.js";
import type { EndpointRuntime } from "./runtime.js";
import type { Sender, SendResult } from "./sender.js";
import { VERSION } from "../version.js";

const USER_AGENT = `hookline/${VERSION}`;

/** What an attempt needs from the engine. */
export interface AttemptDeps {
  clock: Clock;
  sender: Sender;
  random: Random;
}

type Decision = ReturnType<typeof decideNext>;

/** An attempt made: its outcome (to record), the decision and any breaker change. */
export interface AttemptMade {
  outcome: DeliveryOutcome;
  decision: Decision;
  transition: CircuitTransition | null;
}

/**
 * Makes the attempt. A request hookline lost on its own side (see `lost` in sender.ts) is no
 * attempt: nothing is judged, and what went wrong comes back for the delivery to be put back.
 * Nor is an answer judged once `stillHeld` says the delivery is another worker's now.
 */
export async function makeAttempt(
  deps: AttemptDeps,
  rt: EndpointRuntime,
  d: ClaimedDelivery,
  probe: boolean,
  stillHeld: (d: ClaimedDelivery) => boolean | Promise<boolean>,
): Promise<AttemptMade | { lost: string } | { notHeld: true }> {
  const { clock } = deps;
  const at = clock.now();
  const endpoint = rt.endpoint;
  const signed = signatureHeaders(
    d.messageId,
    Math.floor(at / 1000),
    d.payload,
    activeKeys(endpoint.secrets, at),
  );
  const started = performance.now();
  let result: SendResult;
  try {
    result = await deps.sender.send({
      url: endpoint.url,
      headers: requestHeaders(endpoint.headers, signed),
      body: d.payload,
      timeoutMs: rt.policy.timeoutMs,
    });
  } catch (err) {
    // Senders report failures as results; a throw is a bug, recorded rather than lost.
    result = {
      status: null,
      error: "network",
      errorDetail: String(err),
      snippet: "",
      retryAfter: null,
    };
  }
  if (result.lost) return { lost: result.errorDetail ?? "the request was lost" };
  const durationMs = result.durationMs ?? Math.round(performance.now() - started);
  // Nothing of the endpoint (its breaker, its adaptive limit) is this worker's to change then.
  // Answered at once unless the worker is silenced: no promise to wait for on every answer.
  const held = stillHeld(d);
  if (!(typeof held === "boolean" ? held : await held)) return { notHeld: true };
  rt.limit.record(durationMs);
  const attemptsMade = d.attemptCount + 1;
  const now = clock.now();
  const failed = result.status === null || result.status < 200 || result.status > 299;
  // Read once: the decision, the breaker and a replay's answer all judge the same wait.
  const retryAfter = failed ? decideRetryAfter(result.retryAfter, now) : null;
  const notBefore = retryAfterAt(retryAfter, now);
  // The decision as the circuit stands now (called again if the attempt changes it).
  const decide = () =>
    decideNext({
      result,
      retryAfter,
      policy: rt.policy,
      attemptsMade,
      firstAttemptAt: d.firstAttemptAt ?? at,
      previousDelayMs: d.lastDelayMs,
      now,
      circuit: rt.breaker.snapshot(),
      random: deps.random,
      singleAttempt: d.origin === "replay",
    });
  // Judge the breaker first: a retry decided after the circuit opens must wait for the probe.
  const prelim = decide();
  let transition: CircuitTransition | null = null;
  if (!failed) transition = rt.breaker.onSuccess(probe);
  else if (prelim.countsAsFailure)
    transition = rt.breaker.onFailure(probe, describe(result), notBefore);
  else if (probe) transition = rt.breaker.onProbeRateLimited(notBefore);
  const decision = transition ? decide() : prelim;
  const trigger =
    d.origin === "replay"
      ? "replay"
      : probe
        ? "probe"
        : d.attemptCount === 0
          ? d.origin === "resend"
            ? "manual"
            : "first"
          : "retry";
  const outcome: DeliveryOutcome = {
    deliveryId: d.id,
    endpointId: endpoint.id,
    messageId: d.messageId,
    appId: d.appId,
    at,
    attempt: {
      id: newId("atmpt", at),
      at,
      trigger,
      url: endpoint.url,
      status: result.status,
      error: result.error,
      errorDetail: result.errorDetail,
      durationMs,
      responseSnippet: result.snippet,
      outcome: decision.outcome,
      retryAfterMs: askedFor(retryAfter, decision),
      retryAfterIgnored: ignoredFor(retryAfter, decision),
    },
    signatureHeaders: { ...signed },
    next: decision.next,
    retryAfter: decision.retryAfter,
    disableEndpoint: decision.disable,
    attemptNumber: attemptsMade,
    claimedBy: d.claimedBy,
    resend: d.origin === "resend",
  };
  // A replay is not retried, so nothing honours its Retry-After: the operator is told instead.
  if (d.origin === "replay" && result.status === 429) {
    const asked = askedToWait(retryAfter);
    if (asked) outcome.askedToWait = asked;
  }
  return { outcome, decision, transition };
}

/**
 * The wait the receiver's Retry-After asked for, kept with the attempt when it set the retry's
 * time, so that the message's page can say the gap was the receiver's: null otherwise.
 */
function askedFor(ra: RetryAfterDecision | null, decision: Decision): number | null {
  if (!ra || decision.retryAfter === null) return null;
  return ra.kind === "capped" ? ra.requestedMs : ra.kind === "honoured" ? ra.delayMs : null;
}

/**
 * The receiver's Retry-After hookline ignored, kept with the attempt when the ladder then set the
 * retry's time, so that a retry 10 s off after a 30 h ask can say why: null otherwise.
 */
function ignoredFor(ra: RetryAfterDecision | null, decision: Decision): IgnoredRetryAfter | null {
  if (ra?.kind !== "ignored" || decision.retryAfter === null) return null;
  return ra.reason === "too-long"
    ? { reason: "too-long", askedMs: ra.requestedMs }
    : { reason: "malformed", value: ra.value };
}

/**
 * "the receiver asked to wait 30 s (Retry-After)", or "the receiver asked for no wait
 * (Retry-After)", as the dashboard and the CLI say it; null without a usable Retry-After.
 */
function askedToWait(ra: RetryAfterDecision | null): string | null {
  if (!ra) return null;
  if (ra.kind === "ignored") {
    return ra.reason === "too-long"
      ? "the receiver asked to wait more than 24 h (Retry-After)"
      : null;
  }
  const ms = ra.kind === "capped" ? ra.requestedMs : ra.delayMs;
  // `Retry-After: 0`, or a date already past: "asked to wait 0 ms" said it the wrong way round.
  if (ms === 0) return "the receiver asked for no wait (Retry-After)";
  return `the receiver asked to wait ${formatDuration(ms)} (Retry-After)`;
}

/**
 * The endpoint's own headers, then hookline's. Built by assignment, not `{ ...own, "content-type":
 * …, ...signed }`: in Node 20's V8 a spread of a non-empty object followed by new keys takes the
 * slow path, about 4 µs per request with one custom header (measured), against 50 ns.
 */
function requestHeaders(
  own: Record<string, string>,
  signed: SignatureHeaders,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const k of Object.keys(own)) {
    // The API refuses these names, but an endpoint may keep some saved before it did.
    if (!isSignatureHeaderName(k)) headers[k] = own[k]!;
  }
  headers["content-type"] = "application/json";
  headers["user-agent"] = USER_AGENT;
  headers["webhook-id"] = signed["webhook-id"];
  headers["webhook-timestamp"] = signed["webhook-timestamp"];
  headers["webhook-signature"] = signed["webhook-signature"];
  return headers;
}
