/**
 * One description per route, used both to register it with Fastify and to write the OpenAPI
 * document, so the two cannot drift apart. Handlers receive validated input and return an Answer;
 * they never touch the reply, which keeps status codes and bodies in one visible place.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { z } from "zod";
import { ValidationError, type FieldProblem } from "../errors.js";
import { checkPathParams, textProblems, parseWith, throwIfProblems } from "./validation.js";

/** Who may call a route; see {@link RouteDef.access}. */
export type RouteAccess = "admin" | "app" | "any";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * What a handler answers: a JSON value, JSON text already serialized, other text with its content
 * type (e.g. Prometheus metrics), or no body (204).
 */
export type Answer =
  | { status: number; body: unknown }
  | { status: number; json: string }
  | { status: number; text: string; contentType: string }
  | { status: 204 };

export interface RouteInput<B, Q> {
  request: FastifyRequest;
  params: Record<string, string>;
  body: B;
  query: Q;
}

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
}

/** A route as registered and documented. */
export interface RouteDef {
  method: HttpMethod;
  /** OpenAPI form, e.g. `/api/v1/app/{app_id}`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** A hookline addition to the Svix API (documented with `x-hookline-extension: true`). */
  extension?: boolean;
  /** Reachable without any token. */
  public?: boolean;
  /**
   * Which tokens besides admin ones may call it (see auth.ts): `app`, tokens of the application
   * the path names (the default under `/api/v1/app/{app_id}/`); `any`, every valid token; `admin`,
   * none (the default elsewhere).
   */
  access?: RouteAccess;
  /**
   * Answered while the store cannot be read (a database outage), where operators need it: an
   * admin token this process last found valid is taken as it was then (auth.ts).
   */
  duringOutage?: boolean;
  body?: z.ZodType;
  /**
   * Top-level body fields holding the caller's own JSON, stored as written (a message's
   * `payload`): a `\u0000` escape or a `__proto__` key in them is theirs to send, where anywhere
   * else either is refused.
   */
  freeJson?: readonly string[];
  /**
   * A hand-written check of a hot route's common body: `body`'s output for input it is sure of,
   * or undefined to let `body` decide (and name any problem).
   */
  quickBody?: (input: unknown) => unknown;
  query?: z.ZodType;
  responses: Record<number, ResponseDoc>;
  handler(input: RouteInput<unknown, unknown>): Promise<Answer>;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** Declares a route; the handler's `body` and `query` are typed from the schemas given. */
export function defineRoute<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
>(
  def: Omit<RouteDef, "body" | "quickBody" | "query" | "handler"> & {
    body?: B;
    quickBody?: (input: unknown) => Out<B> | undefined;
    query?: Q;
    handler(input: RouteInput<Out<B>, Out<Q>>): Promise<Answer>;
  },
): RouteDef {
  return def as RouteDef;
}

export const ok = (body: unknown): Answer => ({ status: 200, body });
export const created = (body: unknown): Answer => ({ status: 201, body });
export const noContent = (): Answer => ({ status: 204 });

// A NUL, a lone surrogate or an escaped key (`"\u005f_proto__"`) is spelled with an escape.
const ESCAPE = Buffer.from("\\u");
const PROTO_KEY = Buffer.from("__proto__");

/** Registers every route: path parameters, query and body are validated before the handler runs. */
export function registerRoutes(app: FastifyInstance, routes: readonly RouteDef[]): void {
  for (const route of routes) {
    const noQuery = route.query && answerForNoQuery(route.query);
    app.route({
      method: route.method,
      url: route.path.replace(/\{(\w+)\}/g, ":$1"),
      handler: async (request, reply) => {
        // Path, query and body are all checked before answering, so one 422 names every problem.
        const problems: FieldProblem[] = [];
        const collect = <T>(parse: () => T): T => {
          try {
            return parse();
          } catch (err) {
            if (!(err instanceof ValidationError)) throw err;
            problems.push(...err.problems);
            return undefined as T;
          }
        };
        const params = collect(() => checkPathParams(request.params));
        const { query: querySchema, body: bodySchema } = route;
        const rawQuery = request.query ?? {};
        // Most requests (every message posted) have no query: nothing to walk.
        if (!isEmpty(rawQuery)) problems.push(...textProblems(rawQuery, ["query"]));
        // JSON text can only spell a NUL or a lone surrogate as an escape (UTF-8 has no bytes for
        // either), and a `__proto__` key as itself or with escapes: a body with neither is not
        // walked.
        const raw = request.rawBody;
        if (raw && (raw.includes(ESCAPE) || raw.includes(PROTO_KEY))) {
          problems.push(...textProblems(request.body, ["body"], route.freeJson, true));
        }
        const query = !querySchema
          ? undefined
          : noQuery && isEmpty(rawQuery)
            ? noQuery()
            : collect(() => parseWith(querySchema, rawQuery, ["query"]));
        const body = bodySchema
          ? (route.quickBody?.(request.body) ??
            collect(() => parseWith(bodySchema, request.body, ["body"])))
          : undefined;
        throwIfProblems(problems);
        const answer = await route.handler({ request, params, body, query });
        reply.code(answer.status);
        if ("json" in answer)
          return reply.type("application/json; charset=utf-8").send(answer.json);
        if ("text" in answer) return reply.type(answer.contentType).send(answer.text);
        if ("body" in answer) return reply.send(answer.body);
        return reply.send();
      },
    });
  }
}

/**
 * Most requests have no query string, and a query schema's answer to none is always the same (its
 * defaults are constants): it is parsed once, and each request gets a copy of its own. Undefined
 * when the schema refuses an empty query; such a request still gets the schema's problems.
 */
function answerForNoQuery(schema: z.ZodType): (() => unknown) | undefined {
  const parsed = schema.safeParse({});
  if (!parsed.success) return undefined;
  const value = parsed.data;
  return typeof value === "object" && value !== null ? () => ({ ...value }) : () => value;
}

function isEmpty(query: unknown): boolean {
  for (const _ in query as object) return false;
  return true;
}
