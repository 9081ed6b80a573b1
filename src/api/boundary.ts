/**
 * The API's one error boundary: every failure, ours or Fastify's, leaves as a JSON body with a
 * stable `code`. Bad input is never a 500, and a 500 never carries a stack trace.
 */
import { isUtf8 } from "node:buffer";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  ConflictError,
  ForbiddenError,
  HooklineError,
  NotFoundError,
  StoreUnavailableError,
  UnauthorizedError,
  ValidationError,
} from "../errors.js";
import type { ApiLogger } from "./deps.js";

/** The status and body an error is answered with. */
export interface ErrorAnswer {
  status: number;
  body: { code: string; detail: unknown };
  headers?: Record<string, string>;
}

/** Maps any thrown value to its answer; `bodyLimit` is the request's, for a body too large. */
export function errorAnswer(err: unknown, bodyLimit?: number): ErrorAnswer {
  if (err instanceof ValidationError) {
    return { status: 422, body: { code: "validation", detail: err.problems } };
  }
  if (err instanceof NotFoundError)
    return { status: 404, body: { code: err.code, detail: err.message } };
  if (err instanceof ConflictError)
    return { status: 409, body: { code: err.code, detail: err.message } };
  if (err instanceof ForbiddenError)
    return { status: 403, body: { code: err.code, detail: err.message } };
  if (err instanceof UnauthorizedError) {
    return {
      status: 401,
      body: { code: err.code, detail: err.message },
      headers: { "www-authenticate": 'Bearer realm="hookline"' },
    };
  }
  if (err instanceof StoreUnavailableError) {
    return {
      status: 503,
      body: { code: err.code, detail: "the store is unavailable; nothing was accepted" },
      headers: { "retry-after": "5" },
    };
  }
  if (!(err instanceof HooklineError) && isClientError(err)) {
    return fastifyClientError(err, bodyLimit);
  }
  return { status: 500, body: { code: "internal", detail: "internal error" } };
}

function isClientError(err: unknown): err is FastifyError {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" && status >= 400 && status < 500;
}

// Fastify's own errors: body parsing, size limits, content types, malformed URLs.
function fastifyClientError(err: FastifyError, bodyLimit: number | undefined): ErrorAnswer {
  switch (err.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return {
        status: 413,
        body: {
          code: "payload_too_large",
          // The limit is the operator's (HOOKLINE_MAX_BODY_BYTES): the client cannot know it.
          detail:
            "the request body is larger than the server accepts" +
            (bodyLimit === undefined ? "" : ` (at most ${bodyLimit} bytes)`),
        },
      };
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return {
        status: 415,
        body: { code: "unsupported_media_type", detail: "send the body as application/json" },
      };
    case CONTENT_ENCODING:
      return {
        status: 415,
        body: { code: "unsupported_content_encoding", detail: err.message },
        headers: { "accept-encoding": "identity" },
      };
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return { status: 400, body: { code: "invalid_json", detail: "the body is not valid JSON" } };
    case NOT_UTF8:
      return { status: 400, body: { code: "invalid_json", detail: err.message } };
    default:
      return { status: err.statusCode ?? 400, body: { code: "bad_request", detail: err.message } };
  }
}

/** The code of the parser's refusal of a coded (compressed) body, answered 415 like Fastify's. */
const CONTENT_ENCODING = "HOOKLINE_CONTENT_ENCODING";
/** The code of the parser's refusal of a body that is not UTF-8. */
const NOT_UTF8 = "HOOKLINE_NOT_UTF8";

/**
 * Installs the JSON body parser, the error handler and the not-found handler. Answers of 5xx are
 * logged to `logger`: Fastify's own logger is off, so its `request.log` writes nowhere.
 */
export function installBoundary(
  app: FastifyInstance,
  logger?: ApiLogger,
  /** Said after "no route for …": why this process has none (a worker serves no API). */
  notFoundWhy: (method: string, path: string) => string = () => "",
): void {
  // JSON.parse makes a `__proto__` key an own property like any other, never an object's
  // prototype, so such keys are parsed, not refused as "not valid JSON": a payload carrying one is
  // the caller's to send. Outside a payload, route.ts refuses them by name (validation.ts).
  const parseJson = app.getDefaultJsonParser("ignore", "ignore");
  // Only JSON is accepted: anything else is a 415 rather than a string handed to a handler.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    const raw = body as Buffer;
    // Bodies are read as sent: a compressed one would only be reported as JSON it is not.
    const coding = request.headers["content-encoding"]?.trim();
    if (coding && coding.toLowerCase() !== "identity") {
      const detail = `send the body uncompressed: Content-Encoding ${coding} is not accepted`;
      return done(Object.assign(new Error(detail), { code: CONTENT_ENCODING, statusCode: 415 }));
    }
    request.rawBody = raw;
    // An empty body is "no body", e.g. from a client that always sends the header.
    if (raw.length === 0) return done(null, undefined);
    // JSON between systems is UTF-8. Read as it, a bad byte would become U+FFFD: a payload
    // stored, signed and delivered other than the caller sent it, with nothing said.
    if (!isUtf8(raw)) {
      const detail = "the body is not valid UTF-8, which JSON sent to hookline must be";
      return done(Object.assign(new Error(detail), { code: NOT_UTF8, statusCode: 400 }));
    }
    parseJson(request, raw.toString("utf8"), done);
  });

  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const answer = errorAnswer(err, request.routeOptions.bodyLimit);
    if (answer.status >= 500) {
      logger?.error({ err, ...requestFields(request) }, "request failed");
    }
    if (answer.headers) reply.headers(answer.headers);
    // Fastify closes the connection on a body it stopped reading; a client still sending a large
    // one then meets a reset and never reads its 413. Kept open, Node reads the rest and drops
    // it (a whole request must still arrive within REQUEST_TIMEOUT_MS), and the 413 arrives.
    if (answer.status === 413) reply.removeHeader("connection");
    return reply.code(answer.status).send(answer.body);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? request.url;
    return reply.code(404).send({
      code: "not_found",
      detail: `no route for ${request.method} ${path}${notFoundWhy(request.method, path)}`,
    });
  });
}

declare module "fastify" {
  interface FastifyRequest {
    /** The exact bytes of a JSON body: idempotency fingerprints, and a message's payload as sent. */
    rawBody: Buffer | null;
  }
}

/** What a log line says of a request: its method and route (the pattern: no ids, no query). */
export function requestFields(request: FastifyRequest): { method: string; route: string } {
  return { method: request.method, route: request.routeOptions.url ?? "(no route)" };
}
