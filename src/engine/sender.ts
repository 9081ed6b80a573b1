/**
 * The HTTP client side of a delivery: one POST, bounded in time and in how much of the answer is
 * read. Keep-alive pools per origin come from undici's Agent; redirects are never followed.
 */
import { Agent, buildConnector, type Dispatcher } from "undici";
import { readingBeforeWriteFails } from "./answer-before-write-error.js";
import { boundingAnswers } from "./bounded-answer.js";
import { guardedConnector, type ExemptTargets } from "./guarded-connect.js";
import { endedBeforeWriting, rememberingConnectionErrors } from "./lost-idle-connection.js";
import type { TransportErrorClass } from "./outcome.js";
import { TIMEOUT_RANGE } from "./policy.js";
import { readingPastContinue } from "./unasked-continue.js";

// undici gives up connecting (DNS, TCP, TLS) after 10 s by default, which cut short attempts
// allowed longer; set to the longest deadline there is, each attempt's own deadline decides.
const CONNECT_TIMEOUT_MS = TIMEOUT_RANGE.max;

/**
 * How much of a body past the snippet is read and thrown away so its connection can carry the
 * next request. Many receivers answer with an HTML page of 5–50 KiB (a framework's default page);
 * cutting those off at the snippet dropped the connection, and every delivery to them paid a new
 * TCP (and TLS) handshake. Past this, finishing the body costs more than a new connection.
 */
const MAX_DRAINED_BYTES = 64 * 1024;

/**
 * How long an answer's headers may be in all. undici's default (Node's, 16 KiB) made a 200 with
 * many cookies, tracing or a proxy's additions a failed attempt, retried and counted toward the
 * circuit breaker though the receiver had answered. Past this the status cannot be read.
 */
const MAX_HEADER_BYTES = 64 * 1024;

/** One request to an endpoint. */
export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
}

/** What came back: a status, or the class of transport error; never throws. */
export interface SendResult {
  status: number | null;
  error: TransportErrorClass | null;
  /** What went wrong exactly; for a redirect, where it pointed ("Location: https://…"). */
  errorDetail: string | null;
  /** The first bytes of the response body (at most `maxResponseBytes`), as text. */
  snippet: string;
  retryAfter: string | null;
  /** How long the request took where it was made (a sender thread measures its own). */
  durationMs?: number;
  /**
   * hookline lost the request itself (the sender thread making it stopped): there is no answer
   * to judge, and the receiver did nothing wrong, so it is not an attempt (see {@link lost}).
   */
  lost?: true;
}

/** Sends requests; an interface so a test can count or shape traffic without a network. */
export interface Sender {
  send(req: SendRequest): Promise<SendResult>;
  /** Ends every connection at once; requests still in flight fail rather than being waited for. */
  close(): Promise<void>;
  /**
   * Whether API callers are being answered in this process (the engine's loop budget decides):
   * a sender with threads of its own lowers their priority while they are, and gives it back
   * once they have gone. One sending on the main thread has nothing to lower.
   */
  yieldToCallers?(yielding: boolean): void;
}

export interface HttpSenderOptions {
  /** How much of a response body is read and kept (default 4 KiB). */
  maxResponseBytes?: number;
  /** Refuse loopback, private, link-local and metadata addresses at connect time. */
  refusePrivateTargets?: boolean;
  /** Addresses of hookline's own servers let through despite `refusePrivateTargets`. */
  exemptTargets?: ExemptTargets;
}

/** The real sender: undici keep-alive pools, one overall deadline per attempt. */
export class HttpSender implements Sender {
  private readonly agent: Agent;
  private readonly maxBytes: number;

  constructor(options: HttpSenderOptions = {}) {
    this.maxBytes = options.maxResponseBytes ?? 4096;
    this.agent = new Agent({
      // A receiver that closes idle connections without a Keep-Alive hint (Puma after 20 s,
      // uvicorn after 5 s) can close one just as a delivery is sent on it: the delivery fails as
      // a reset the receiver never saw, and counts toward its circuit. Let go sooner than they
      // do; a hint from the receiver still sets the time. Endpoints in steady use never idle.
      keepAliveTimeout: 4_000,
      keepAliveMaxTimeout: 120_000,
      connections: null,
      pipelining: 1,
      maxHeaderSize: MAX_HEADER_BYTES,
      connect: rememberingConnectionErrors(
        readingBeforeWriteFails(
          readingPastContinue(
            boundingAnswers(
              options.refusePrivateTargets
                ? guardedConnector(CONNECT_TIMEOUT_MS, options.exemptTargets)
                : buildConnector({ timeout: CONNECT_TIMEOUT_MS }),
            ),
          ),
        ),
      ),
    });
  }

  // undici's dispatch with a handler of our own: no response stream, no AbortController, no
  // promise per step — about 40 % less CPU per request than `request()` (measured), on every
  // delivery.
  send(req: SendRequest): Promise<SendResult> {
    return new Promise((resolve) => {
      const exchange = new Exchange(req.url, req.timeoutMs, this.maxBytes, resolve, this.agent);
      try {
        const target = splitUrl(req.url);
        exchange.dispatch({
          origin: target.origin,
          path: target.path,
          method: "POST",
          headers: req.headers,
          body: req.body,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        });
      } catch (err) {
        // A URL or header undici will not take: a result like any other failure, never a throw.
        exchange.fail(err);
      }
    });
  }

  // The engine has waited for answers as long as the shutdown timeout allows before this is
  // called; undici's close() would wait again, for up to the attempt's deadline.
  async close(): Promise<void> {
    await this.agent.destroy();
  }
}

/**
 * One request's life as undici reports it. One deadline covers connecting, waiting for headers
 * and reading the body. At most `max` bytes of the body are kept; the rest is read and thrown
 * away, so the connection is kept, up to MAX_DRAINED_BYTES in all: a longer body, or one not
 * ended by the deadline, has its connection dropped, so an endless response costs nothing more.
 * Once the status is known, a body that stalls past the deadline or breaks keeps what arrived
 * instead of turning the answer into an error.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private status: number | null = null;
  private retryAfter: string | null = null;
  /** Where a redirect pointed (redirects are not followed): the answer's `errorDetail`. */
  private location: string | null = null;
  private chunks: Buffer[] = [];
  /** Bytes of the body kept in `chunks`. */
  private size = 0;
  /** Bytes of the body read in all. */
  private read = 0;
  private settled = false;
  private timedOut = false;
  private readonly timer: NodeJS.Timeout;
  private options: Dispatcher.DispatchOptions | null = null;
  /** Sent again already, having waited on a connection that was lost (see `waitedOnLost`). */
  private sentAgain = false;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly max: number,
    private readonly resolve: (r: SendResult) => void,
    private readonly agent: Agent,
  ) {
    this.timer = setTimeout(() => this.expire(), timeoutMs);
  }

  /** Hands the request to undici; its options are kept in case it must go again. */
  dispatch(options: Dispatcher.DispatchOptions): void {
    this.options = options;
    this.agent.dispatch(options, this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.settled) controller.abort(new Error("deadline passed"));
  }

  onResponseStart(
    _c: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // 1xx: the real answer follows
    this.status = statusCode;
    const ra = headers["retry-after"];
    this.retryAfter = Array.isArray(ra) ? (ra[0] ?? null) : (ra ?? null);
    // Read only for the rare redirect: a plain "HTTP 301" leaves the user guessing the new URL.
    if (statusCode >= 300 && statusCode < 400) {
      const to = headers["location"];
      this.location = redirectTarget(this.url, Array.isArray(to) ? to[0] : to);
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.size < this.max) {
      this.chunks.push(chunk);
      this.size += chunk.length;
    }
    this.read += chunk.length;
    if (this.read > MAX_DRAINED_BYTES) {
      this.answer();
      controller.abort(new Error(`response body over ${MAX_DRAINED_BYTES / 1024} KiB`));
    }
  }

  onResponseEnd(): void {
    this.answer();
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    if (this.status !== null) this.answer();
    else if (this.waitedOnLost(err)) process.nextTick(sendAgain, this);
    else this.fail(err);
  }

  /**
   * Whether this request failed unwritten, waiting on a kept-alive connection that ended (see
   * lost-idle-connection.ts); undici starts a request (onRequestStart) as it hands it to the
   * socket. The receiver never saw it, so it goes again, once, on another connection, within its
   * deadline.
   */
  private waitedOnLost(err: Error): boolean {
    if (this.sentAgain || this.settled || !endedBeforeWriting(err, this.controller !== null)) {
      return false;
    }
    this.sentAgain = true;
    return true;
  }

  /** Sends the request again (see `waitedOnLost`), a tick later: undici is still failing its queue. */
  resend(): void {
    if (this.settled) return; // its deadline passed meanwhile
    try {
      this.agent.dispatch(this.options!, this);
    } catch (err) {
      this.fail(err);
    }
  }

  fail(err: unknown): void {
    const error = this.timedOut ? "timeout" : classifyError(err);
    this.settle(failure(error, error === "timeout" ? this.noAnswer() : describeError(err)));
  }

  private expire(): void {
    if (this.settled) return;
    this.timedOut = true;
    if (this.status !== null) this.answer();
    else this.settle(failure("timeout", this.noAnswer()));
    this.controller?.abort(new Error(this.noAnswer()));
  }

  // undici starts a request (onRequestStart) only on a connection set up, TLS included: before,
  // the deadline cut short the connecting (a firewall dropping packets, a handshake never
  // answered), not the receiver's handling of the request.
  private noAnswer(): string {
    return `no ${this.controller ? "answer" : "connection"} within ${this.timeoutMs} ms`;
  }

  private answer(): void {
    const snippet = readable(
      wholeCharacters(Buffer.concat(this.chunks, this.size), this.max).toString("utf8"),
    );
    this.settle({
      status: this.status,
      error: null,
      errorDetail: this.location,
      snippet,
      retryAfter: this.retryAfter,
    });
  }

  private settle(result: SendResult): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.chunks = [];
    this.resolve(result);
  }
}

function sendAgain(exchange: Exchange): void {
  exchange.resend();
}

/** Longest redirect target kept, in characters: a URL, not a body. */
const MAX_LOCATION_CHARS = 2048;

/**
 * "Location: https://…" for a redirect's `Location`, resolved against the URL it answered (a
 * relative "/hooks/" says little on a dashboard), its control characters shown as U+FFFD and cut
 * at 2 KiB; null without one.
 */
export function redirectTarget(url: string, location: string | undefined): string | null {
  if (!location) return null;
  let target = location;
  try {
    target = new URL(location, url).href;
  } catch {
    // Not a URL even relative to the endpoint's: kept as the receiver sent it.
  }
  if (target.length > MAX_LOCATION_CHARS) target = `${target.slice(0, MAX_LOCATION_CHARS)}…`;
  return `Location: ${target.replace(/[\u0000-\u001f\u007f-\u009f]/g, "\uFFFD")}`;
}

/**
 * A redirect's target in a reason built from an attempt (decide.ts `describe`): `(Location: …)`,
 * up to the reason's last `)`. Reasons go on after it in several ways ("; next probe …",
 * " is permanent"), and a target may hold `)` of its own: a match that had to know what follows
 * let the target of a redirect counted permanent through whole. Taking up to the last `)` may
 * leave out words after it too, never a part of the target.
 */
const REDIRECT_IN_REASON = /\(Location: .*\)/;

/**
 * `reason` without any redirect's target, for a log line. A receiver's redirect most often points
 * at the endpoint's own URL written otherwise (https, a trailing slash), token and all, and no log
 * line holds an endpoint's URL; the attempt and the records built from it keep the target.
 */
export function withoutRedirectTarget(reason: string): string {
  if (!reason.includes("(Location: ")) return reason;
  return reason.replace(REDIRECT_IN_REASON, "(Location left out of the log)");
}

/** A send that got no answer: the class of what went wrong, and what exactly. */
export function failure(error: TransportErrorClass, detail: string): SendResult {
  return { status: null, error, errorDetail: detail, snippet: "", retryAfter: null };
}

/**
 * A request hookline lost on its own side: it may or may not have reached the receiver. The
 * engine puts its delivery back to be sent again, spending no attempt and counting no failure.
 */
export function lost(detail: string): SendResult {
  return { ...failure("network", detail), error: null, lost: true };
}

// Endpoint URLs repeat: each is split into undici's origin and path once.
const targets = new Map<string, { origin: string; path: string }>();
function splitUrl(url: string): { origin: string; path: string } {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    t = { origin: u.origin, path: `${u.pathname}${u.search}` };
    if (targets.size >= 10_000) targets.clear();
    targets.set(url, t);
  }
  return t;
}

/** Maps Node and undici error codes onto hookline's transport error classes. */
export function classifyError(err: unknown): TransportErrorClass {
  type Coded = { code?: string; syscall?: string };
  const e = err as Coded & { cause?: Coded; name?: string; message?: string };
  const source = e.code ? e : (e.cause ?? {});
  const code = source.code ?? "";
  if (code === "HOOKLINE_REFUSED_TARGET") return "refused_target";
  // Whatever getaddrinfo answered (EAI_FAIL for a server failure, EINVAL for a name too long to
  // look up, …), the name did not resolve: Node keeps only not-found as ENOTFOUND.
  if (source.syscall === "getaddrinfo" || code === "ENOTFOUND" || code.startsWith("EAI_")) {
    return "dns";
  }
  if (/TIMEOUT|ETIMEDOUT/.test(code) || e.name === "AbortError") return "timeout";
  if (code === "ECONNREFUSED") return "connection_refused";
  // undici's own words for a 101 that names a protocol (one that names none fails an assertion):
  // an answer hookline cannot take, not a connection the receiver reset.
  if (code === "UND_ERR_SOCKET" && source === e && e.message === UNASKED_UPGRADE) return "network";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") {
    return "connection_reset";
  }
  if (/^ERR_TLS|CERT|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return "tls";
  return "network";
}

/** undici's SocketError message for a 101 with `Connection: upgrade` to a request not asking. */
const UNASKED_UPGRADE = "bad upgrade";
const SWITCHED_UNASKED =
  "the answer was HTTP 101 Switching Protocols, to a request that asked for no upgrade";

/** The status lines undici refuses by assertion, by the assertion's source, in plain words. */
const ASSERTED_STATUS: [string, string][] = [
  ["assert(upgrade)", SWITCHED_UNASKED],
  ["assert(statusCode >= 100)", "the answer's status is under 100, which HTTP does not have"],
];

/** What undici's parser can have refused once a Content-Length was read; it does not say which. */
const MALFORMED_AFTER_LENGTH =
  "the answer's headers are malformed: Content-Length given twice, not a number or beside " +
  "Transfer-Encoding, or a header after it that HTTP does not allow (a control character, " +
  "a line folded onto the next)";

function describeError(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { message?: string } };
  // undici's own words ("Headers Overflow Error") do not say the receiver did answer, nor the limit.
  if (e.code === "UND_ERR_HEADERS_OVERFLOW") {
    return `response headers over ${MAX_HEADER_BYTES / 1024} KiB`;
  }
  // undici's parser meets some status lines with an assertion of its own, whose words ("The
  // expression evaluated to a falsy value: assert(upgrade)") would be all the attempt shows.
  if (e.code === "ERR_ASSERTION") {
    const named = ASSERTED_STATUS.find(([source]) => e.message?.includes(source));
    if (named) return named[1];
  }
  // A body shorter than its Content-Length keeps its status (Exchange.onResponseError), so this
  // reaches here only from headers undici's parser refused after a Content-Length among them:
  // undici then puts its own body-length words in place of the parser's reason.
  if (e.code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH") return MALFORMED_AFTER_LENGTH;
  if (e.code === "UND_ERR_SOCKET" && e.message === UNASKED_UPGRADE) return SWITCHED_UNASKED;
  const text = e.cause?.message ?? e.message ?? String(err);
  return readable((e.code ? `${e.code}: ${text}` : text).slice(0, 500));
}

/**
 * At most `max` bytes of a body, cut before a character the limit would split: its first bytes
 * alone would be kept as U+FFFD, a character the receiver never sent.
 */
function wholeCharacters(body: Buffer, max: number): Buffer {
  if (body.length <= max) return body;
  // A byte 10xxxxxx continues a character; step back (at most 3) to the byte that starts it.
  let cut = max;
  while (cut > max - 3 && cut > 0 && (body[cut]! & 0xc0) === 0x80) cut--;
  return body.subarray(0, (body[cut]! & 0xc0) === 0x80 ? max : cut);
}

/**
 * Text that came from a receiver, made safe to store: NUL becomes U+FFFD, since a PostgreSQL text
 * column refuses it and one refused attempt would hold back the whole commit of outcomes.
 */
function readable(text: string): string {
  return text.includes("\0") ? text.replace(/\0/g, "\uFFFD") : text;
}
