/**
 * The HTTP client side of a delivery: one POST, bounded in time and in how much of the answer is
 * read. Keep-alive pools per origin come from undici's Agent; redirects are never followed.
 */
import { Agent, request, type Dispatcher } from "undici";
import { guardedConnector, type ExemptTargets } from "./guarded-connect.js";
import type { TransportErrorClass } from "./outcome.js";

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
  errorDetail: string | null;
  /** The first bytes of the response body (at most `maxResponseBytes`), as text. */
  snippet: string;
  retryAfter: string | null;
  /** How long the request took where it was made (a sender thread measures its own). */
  durationMs?: number;
}

/** Sends requests; an interface so a test can count or shape traffic without a network. */
export interface Sender {
  send(req: SendRequest): Promise<SendResult>;
  close(): Promise<void>;
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
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      connections: null,
      pipelining: 1,
      ...(options.refusePrivateTargets ? { connect: guardedConnector(options.exemptTargets) } : {}),
    });
  }

  async send(req: SendRequest): Promise<SendResult> {
    // One deadline covers connecting, waiting for headers and reading the snippet.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), req.timeoutMs);
    try {
      const res = await request(req.url, {
        method: "POST",
        headers: req.headers,
        body: req.body,
        dispatcher: this.agent,
        signal: controller.signal,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
      const snippet = await readSnippet(res.body, this.maxBytes);
      const retryAfter = res.headers["retry-after"];
      return {
        status: res.statusCode,
        error: null,
        errorDetail: null,
        snippet,
        retryAfter: Array.isArray(retryAfter) ? (retryAfter[0] ?? null) : (retryAfter ?? null),
      };
    } catch (err) {
      const error = controller.signal.aborted ? "timeout" : classifyError(err);
      const detail =
        error === "timeout" ? `no answer within ${req.timeoutMs} ms` : describeError(err);
      return { status: null, error, errorDetail: detail, snippet: "", retryAfter: null };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

// Reads at most `max` bytes; a longer body is cut off and its connection dropped rather than
// drained, so an endless response costs nothing more. The status is already known, so a body
// that stalls past the deadline keeps what arrived instead of turning the answer into an error.
async function readSnippet(body: Dispatcher.ResponseData["body"], max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buf = chunk as Buffer;
      chunks.push(buf);
      size += buf.length;
      if (size >= max) break;
    }
  } catch {
    // Aborted by the deadline or reset mid-body: keep the partial snippet.
  } finally {
    if (!body.destroyed && size >= max) body.destroy();
  }
  return Buffer.concat(chunks, size).subarray(0, max).toString("utf8");
}

/** Maps Node and undici error codes onto hookline's transport error classes. */
export function classifyError(err: unknown): TransportErrorClass {
  const e = err as { code?: string; cause?: { code?: string }; name?: string };
  const code = e.code ?? e.cause?.code ?? "";
  if (code === "HOOKLINE_REFUSED_TARGET") return "refused_target";
  if (/TIMEOUT|ETIMEDOUT/.test(code) || e.name === "AbortError") return "timeout";
  if (code === "ECONNREFUSED") return "connection_refused";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") {
    return "connection_reset";
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "dns";
  if (/^ERR_TLS|CERT|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return "tls";
  return "network";
}

function describeError(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { message?: string } };
  const text = e.cause?.message ?? e.message ?? String(err);
  return (e.code ? `${e.code}: ${text}` : text).slice(0, 500);
}
