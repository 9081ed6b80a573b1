/**
 * One attempt as someone debugging a receiver needs it: what came back (status, or the transport
 * error with its detail), and on demand the whole response body hookline kept and the request as
 * it was sent (the headers the receiver got, and what the signature covers).
 */
import { h } from "../dom.js";
import { asSent, latency, pretty, startOf, time } from "../format.js";
import type { AskedWait, Attempt, IgnoredRetryAfter } from "../types.js";
import { askedWaitNote, askedWaitWords, ignoredWords } from "./retry-after.js";

/** The parts of an attempt shown here, as both the attempt and the dead-letter APIs give them. */
export interface AttemptView {
  id: string;
  /** When it was sent: also the signature's timestamp, to the second. */
  at: string;
  url: string;
  msgId: string;
  status: number | null;
  error: string | null;
  errorDetail: string | null;
  /** The start of the response body (what hookline keeps, 4 KiB at most). */
  response: string;
  /** How the answer's Retry-After set the next attempt's time; null or absent where it set none. */
  retryAfter?: AskedWait | null;
  /** The answer's Retry-After hookline ignored, and why; null or absent where none was. */
  retryAfterIgnored?: IgnoredRetryAfter | null;
}

/** An attempt as the attempt API answers it. */
export const viewOf = (a: Attempt): AttemptView => ({
  id: a.id,
  at: a.timestamp,
  url: a.url,
  msgId: a.msgId,
  status: a.responseStatusCode || null,
  error: a.error,
  errorDetail: a.errorDetail,
  response: a.response,
  retryAfter: a.retryAfter ?? null,
  retryAfterIgnored: a.retryAfterIgnored ?? null,
});

/**
 * hookline's transport error classes in a customer's words, and what to check or change for each:
 * the class names (`connection_refused`, `tls`) and Node's codes in the detail are hookline's and
 * Node's, not words someone debugging their own server knows.
 */
const TRANSPORT: Record<string, { words: string; note: string }> = {
  timeout: {
    words: "timed out",
    note:
      "hookline waits only so long for an answer: answer as soon as the webhook is received " +
      "(with a 2xx) and do the work after; if the detail says no connection, none (TCP or TLS) " +
      "was set up in time: check that the host is up and that a firewall lets hookline in.",
  },
  connection_refused: {
    words: "connection refused",
    note:
      "Nothing accepted the connection at this host and port: check that your server is " +
      "running and listening on the URL's port.",
  },
  connection_reset: {
    words: "connection reset",
    note:
      "The connection was closed before an answer came, by your server or by a proxy or load " +
      "balancer in front of it: their logs say why.",
  },
  dns: {
    // Every failed lookup, not only a name that does not exist: EAI_AGAIN is one that got no answer.
    words: "host name lookup failed",
    note:
      "The URL's host name could not be looked up: check that it is spelt right and has a DNS " +
      "record; EAI_AGAIN in the detail is a lookup that got no answer, which may pass.",
  },
  tls: {
    words: "secure connection (TLS) failed",
    // Not "an authority browsers trust": a browser fetches an intermediate the server left out
    // and hookline does not, and an operator's NODE_EXTRA_CA_CERTS adds authorities of its own.
    note:
      "hookline could not set up HTTPS with your server: its certificate must be in date, name " +
      "the URL's host and be signed by an authority hookline trusts (the public ones; a " +
      "self-signed certificate is refused unless this hookline's operator added it), with the " +
      "intermediate certificates sent along, as hookline does not fetch them as a browser " +
      "does. An https URL to a port that serves plain HTTP fails so too.",
  },
  network: {
    words: "network error",
    note: "The request failed before an answer hookline could read came back; the detail says how.",
  },
  refused_target: {
    words: "address not allowed",
    note:
      "hookline does not send to addresses that are not public (loopback, private network, " +
      "link-local, cloud metadata and the like), and the URL's host is or resolves to one: " +
      "give the endpoint a URL whose host resolves only to public internet addresses. hookline " +
      "gives the message up at once, without retrying.",
  },
};

/**
 * A duration hookline's engine writes in milliseconds ("no answer within 2000 ms", a replay's
 * "in 2003 ms") as every other on the dashboard reads ({@link latency}: "2.0 s").
 */
const inSeconds = (text: string): string =>
  text.replace(/\b(\d+) ms(?![\p{L}\p{N}_])/gu, (_, ms: string) => latency(Number(ms)));

/**
 * A transport error class where hookline's reasons name one (decide.ts `describe`): first, or
 * after "last: ", "probe failed: " and the like, and before its detail or the rest of the reason.
 */
const CLASS_IN_REASON = new RegExp(
  `(^|: )(${Object.keys(TRANSPORT).join("|")})(?= \\(|;| is | in |$)`,
  "g",
);

/**
 * hookline's own words about a failure (a circuit's reason, a dead-letter record's, a record's
 * history) with the transport error as an attempt's result names it and its durations in seconds:
 * "5 consecutive failures within 60 s; last: connection refused (ECONNREFUSED …)", not
 * "connection_refused". The API keeps the class names, which its clients and the CLI read.
 */
export const failureWords = (reason: string): string =>
  inSeconds(
    reason.replace(
      CLASS_IN_REASON,
      (_, before: string, error: string) => `${before}${TRANSPORT[error]!.words}`,
    ),
  );

/**
 * "HTTP 503", "HTTP 301 (Location: https://…)" for a redirect (not followed), or the transport
 * error in words with its detail ("connection refused (ECONNREFUSED …)", "timed out (no answer
 * within 2.0 s)").
 */
export function attemptResult(a: AttemptView): string {
  if (a.status) return a.errorDetail ? `HTTP ${a.status} (${a.errorDetail})` : `HTTP ${a.status}`;
  if (!a.error) return "no answer";
  const words = TRANSPORT[a.error]?.words ?? a.error;
  return a.errorDetail ? `${words} (${inSeconds(a.errorDetail)})` : words;
}

/** A 3xx: hookline never follows one, so the endpoint's messages keep going to the old URL. */
export const isRedirect = (a: AttemptView): boolean =>
  a.status !== null && a.status >= 300 && a.status < 400;

/**
 * Beside a result a customer may not read at once: for a redirect, that the retries will not get
 * through and what to do instead; for a transport error, what it means and what to check. Empty
 * for any other result.
 */
export function resultNote(a: AttemptView): string {
  if (isRedirect(a)) {
    return "hookline does not follow redirects: if the endpoint has moved, change its URL.";
  }
  return !a.status && a.error ? (TRANSPORT[a.error]?.note ?? "") : "";
}

/** Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko and others). */
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]|\ud802[\udc00-\udfff]|\ud83a[\udc00-\udfff]/;

/**
 * Unicode's direction controls (embeddings, overrides, isolates and marks): JSON lets a string
 * hold them unescaped, and one left to act would reverse what follows it, past its string.
 */
const CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * A string's content with each direction control isolated on its own: an override or embedding
 * then ends where it begins, and an isolate's end closes only its own isolate, not the string's.
 */
function inert(text: string): (Node | string)[] {
  if (!CONTROL.test(text)) return [text];
  return text
    .split(new RegExp(`(${CONTROL.source})`))
    .map((part, i) => (i % 2 ? h("bdi", {}, part) : part));
}

/**
 * JSON text with the content of each right-to-left string isolated (`<bdi>`), the text itself
 * unchanged: a Hebrew or Arabic string otherwise draws the quotes, commas and numbers next to it
 * into its own direction, and `["שלום",1,2]` reads as `["1,2,"שלום]`. So is a string holding a
 * direction control (a right-to-left override), which would otherwise reverse the rest of the
 * payload: a sender's string could make the page show other bytes than those sent and signed.
 */
function isolateStrings(json: string): (Node | string)[] {
  // Only strings holding right-to-left letters or controls: a large payload of others stays one
  // text node.
  if (!RTL.test(json) && !CONTROL.test(json)) return [json];
  const out: (Node | string)[] = [];
  let last = 0;
  for (const m of json.matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
    if (!RTL.test(m[1]!) && !CONTROL.test(m[1]!)) continue;
    out.push(json.slice(last, m.index), '"', h("bdi", {}, inert(m[1]!)), '"');
    last = m.index + m[0].length;
  }
  out.push(json.slice(last));
  return out;
}

/**
 * A block of text someone may scroll with the keyboard (a payload, a response body), so it takes
 * focus. Named, as a group: a `pre`'s own label is not read out. Keyed, so that focus stays on it
 * when the region around it is redrawn (a new attempt, a replay) rather than falling to the page.
 */
const textBlock = (label: string, key: string, text: (Node | string)[] | string): HTMLElement =>
  h(
    "pre",
    { class: "payload", tabindex: 0, role: "group", "aria-label": label, "data-key": key },
    text,
  );

/**
 * A payload, from the API's answer: indented to be read, and folded beneath it the text as sent,
 * byte for byte, to check a signature against (one computed over the indented text never matches).
 */
export function payloadView(answer: string): HTMLElement[] {
  return [
    textBlock("Payload", "payload", isolateStrings(pretty(answer))),
    h(
      "details",
      { class: "attempt-details", "data-key": "payload-as-sent" },
      h(
        "summary",
        { "data-key": "payload-as-sent-summary" },
        "As sent: the exact bytes each signature covers",
      ),
      textBlock("Payload as sent", "payload-as-sent-text", isolateStrings(asSent(answer))),
    ),
  ];
}

/** A table cell: the response's first characters, and the whole attempt folded beneath. */
export function responseCell(a: AttemptView): HTMLElement[] {
  return [h("code", { class: "snippet" }, startOf(a.response, 120)), attemptDetails(a)];
}

/** The response and request of an attempt, folded; it stays open across live redraws. */
export function attemptDetails(a: AttemptView): HTMLElement {
  const timestamp = String(Math.floor(Date.parse(a.at) / 1000));
  const headers = [
    "content-type: application/json",
    `webhook-id: ${a.msgId}`,
    `webhook-timestamp: ${timestamp}`,
    "webhook-signature: v1,<base64 HMAC-SHA256> (one per signing secret in force)",
  ].join("\n");
  return h(
    "details",
    { class: "attempt-details", "data-key": `attempt-${a.id}` },
    // Found again after a redraw (focus stays on it), and named apart from its neighbours'.
    h(
      "summary",
      {
        "data-key": `attempt-summary-${a.id}`,
        "aria-label": `Request and response of the attempt at ${time(a.at)}`,
      },
      "Request and response",
    ),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Sent to"),
      h("dd", {}, h("code", {}, a.url)),
      h("dt", {}, "Result"),
      h(
        "dd",
        {},
        attemptResult(a),
        resultNote(a) ? h("small", { class: "note" }, resultNote(a)) : "",
      ),
      a.retryAfter
        ? [
            h("dt", {}, "Retry-After"),
            h(
              "dd",
              {},
              askedWaitWords(a.retryAfter),
              // The time it set, which the endpoint's circuit or a resend may have moved since.
              h("small", { class: "note" }, askedWaitNote(a.retryAfter)),
            ),
          ]
        : "",
      a.retryAfterIgnored
        ? [h("dt", {}, "Retry-After"), h("dd", {}, ignoredWords(a.retryAfterIgnored))]
        : "",
      h("dt", {}, "Response body"),
      h(
        "dd",
        {},
        a.response ? textBlock("Response body", `attempt-response-${a.id}`, a.response) : "none",
        // On a line of its own: beside "none" it read as "nonehookline keeps …".
        h("small", { class: "note" }, "hookline keeps the first 4 KiB of a response."),
      ),
      h("dt", {}, "Request headers"),
      h(
        "dd",
        {},
        textBlock("Request headers", `attempt-headers-${a.id}`, headers),
        h(
          "small",
          {},
          `Each signature is the HMAC-SHA256, keyed with a signing secret of the endpoint, of ` +
            `"${a.msgId}.${timestamp}." followed by the payload's exact bytes (its "As sent" text; after a rotation, ` +
            "the old secret signs too until its grace period ends). The endpoint's own headers, " +
            "if it has any, are sent as well.",
        ),
      ),
    ),
  );
}
