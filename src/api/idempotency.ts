/**
 * Idempotency keys for POST requests, as Svix clients send them (`idempotency-key`, and an
 * automatic `auto_<uuid>` on every POST). The first request with a key runs and its answer is
 * kept for 24 h; a repeat gets the same status and bytes without running again. A repeat that
 * arrives while the first is still running is told so (409), and so is a different request
 * reusing the key. Server errors, conflicts (409) and not-founds (404) are not kept, so a retry
 * after one runs again.
 * What the store cannot take as a request ends (it went away) is written once it is back: see
 * unsettled-keys.ts.
 */
import { createHash, randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ValidationError } from "../errors.js";
import type { Application, Endpoint, EventType } from "../domain/types.js";
import type {
  EndpointKeys,
  HeldIdempotencyKey,
  IdempotencyScopes,
  KeptAnswer,
  Store,
} from "../store/port.js";
import type { Clock } from "../clock.js";
import { UnsettledKeys, type KeyInHand } from "./unsettled-keys.js";
import { requestFields } from "./boundary.js";
import type { ApiLogger } from "./deps.js";

const LOCK_MS = 60_000;
const TTL_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 256;
/** Whose keys an admin token's are: every admin token shares them. */
const ADMIN = "admin";
const APP_ENDPOINTS = "/api/v1/app/:app_id/endpoint";
const OPERATIONAL_ENDPOINTS = "/api/v1/operational-webhook/endpoint";
const EVENT_TYPES = "/api/v1/event-type";
const BULK_REPLAY = "/api/v1/dlq/replay";
/**
 * What a body names: the field that does, and what it names; `then`, a field that names an
 * endpoint of that application (a bulk replay's `endpointId`, its id or uid).
 */
type Naming = {
  field: "appId" | "uid" | "name";
  names: "app" | "endpoint" | "event type";
  then?: "endpointId";
};
/**
 * The POST routes whose body names what the request makes or acts on, with the field that does:
 * an app token's creation and a bulk replay of one application's records (`appId`, its id or
 * uid, and the endpoint a replay names with it), the creation of an application or an endpoint
 * (`uid`) and of an event type (`name`).
 * Their keys' scope names it too, so the keys go with it as those of its own paths do (see
 * {@link applicationKeys}, {@link endpointKeys}, {@link eventTypeKeys}): a creation's key used
 * before "acme" was deleted would otherwise replay the deleted application, and make none.
 */
const NAMING_IN_BODY: ReadonlyMap<string, Naming> = new Map<string, Naming>([
  ["/api/v1/tokens", { field: "appId", names: "app" }],
  [BULK_REPLAY, { field: "appId", names: "app", then: "endpointId" }],
  ["/api/v1/app", { field: "uid", names: "app" }],
  [APP_ENDPOINTS, { field: "uid", names: "endpoint" }],
  [OPERATIONAL_ENDPOINTS, { field: "uid", names: "endpoint" }],
  [EVENT_TYPES, { field: "name", names: "event type" }],
]);
/**
 * The routes whose scope is not their path: a resend names the endpoint before the message, so
 * that every key of the endpoint's paths begins alike and goes with it (see {@link endpointKeys}).
 */
const SCOPED_AS: ReadonlyMap<string, string> = new Map([
  [
    "/api/v1/app/:app_id/msg/:msg_id/endpoint/:endpoint_id/resend",
    `${APP_ENDPOINTS}/:endpoint_id/msg/:msg_id/resend`,
  ],
]);
/**
 * Ids and uids are ASCII and at most 256 characters, and so is a message's eventId in characters:
 * the scope of a path that names anything stays well under this. PostgreSQL's index of keys takes
 * a scope and key of about 2.7 kB at most, and a key of 256 Latin-1 characters is 512 bytes.
 */
const MAX_SCOPE_BYTES = 2_048;

/** Adds the hooks that begin a key before the handler and record the answer as it is sent. */
export function installIdempotency(
  app: FastifyInstance,
  deps: { store: Store; clock: Clock; logger?: ApiLogger },
): void {
  app.decorateRequest("idempotency", null);
  const unsettled = new UnsettledKeys(deps);
  app.addHook("onClose", async () => unsettled.close());

  app.addHook("preHandler", async (request, reply) => {
    const key = request.headers["idempotency-key"];
    const routeUrl = request.routeOptions.url;
    if (request.method !== "POST" || key === undefined || !routeUrl) return;
    if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw new ValidationError([
        {
          loc: ["header", "idempotency-key"],
          msg: `must be one value of 1 to ${MAX_KEY_LENGTH} characters`,
          type: "value_error",
        },
      ]);
    }
    // An application token's keys are its own: logout (one path for every token) acts on the
    // caller, so another token's key must not answer for it. Admin tokens share theirs.
    const who = request.identity?.scope === "app" ? appToken(request.identity.tokenId) : ADMIN;
    const path =
      fillParams(SCOPED_AS.get(routeUrl) ?? routeUrl, request.params) +
      bodyNaming(routeUrl, request.body);
    const scope = `${who}:POST ${path}`;
    // A path holding a NUL, or too long to name anything, is refused by the route (422, or 404),
    // and PostgreSQL could not store its key: none is held.
    if (scope.includes("\0") || Buffer.byteLength(scope) > MAX_SCOPE_BYTES) return;
    // The request's own token: past its lock a repeat may take the key, and this request's
    // answer (or release) must then not land on the repeat's.
    const held: HeldIdempotencyKey = { scope, key, owner: randomUUID() };
    // A request of this process that held the key before may have left it locked, or its answer
    // unkept, while the store was away: that is written first (or this one fails alike, 503).
    await unsettled.settleBefore(scope, key);
    const now = deps.clock.now();
    const state = await deps.store.beginIdempotent({
      ...held,
      fingerprint: fingerprint(request),
      now,
      lockMs: LOCK_MS,
      ttlMs: TTL_MS,
    });
    switch (state.kind) {
      case "new":
        request.idempotency = { held, lockedUntil: now + LOCK_MS };
        return;
      case "replay":
        return replay(reply, state.status, state.body);
      case "in-progress":
        return reply.code(409).send({
          code: "idempotency_in_progress",
          detail: "a request with this idempotency key is still being processed; retry shortly",
        });
      case "mismatch":
        return reply.code(409).send({
          code: "idempotency_mismatch",
          detail: "this idempotency key was already used for a different request",
        });
    }
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const inHand = request.idempotency;
    if (!inHand) return payload;
    request.idempotency = null;
    // The store is away: freeing the key would wait on it as long again (a silent host, up to the
    // query timeout), holding the answer back. It is freed once the store takes it.
    if (reply.statusCode === 503) {
      unsettled.settleSoon(inHand, null);
      return payload;
    }
    const body = payloadText(payload);
    // A conflict (409) wrote nothing and may clear ("send it again"): like a server error, it is
    // not kept, so the same request with the same key runs again. So with a 404: what the path
    // names may be made next (an application a client posts to before it exists), and the key
    // must not go on saying "not found" of it. Nothing is written once a repeat has taken the key
    // (this request ran past its lock).
    const status = reply.statusCode;
    const free = status >= 500 || status === 409 || status === 404 || body === null;
    try {
      await unsettled.settle(inHand, free ? null : { status, body });
    } catch (err) {
      // The answer itself is fine; the key stays locked until its lock ends, then may run again.
      deps.logger?.error(
        { err, ...requestFields(request) },
        "could not record the idempotency key's answer",
      );
    }
    return payload;
  });
}

/**
 * The idempotency key `request` holds, for a write that keeps the request's answer in its own
 * transaction (a message's: see `KeyAnswer`); null when it holds none.
 */
export function heldKey(request: FastifyRequest): HeldIdempotencyKey | null {
  return request.idempotency?.held ?? null;
}

/** The request's answer was kept with what it wrote: nothing is left to write as it is sent. */
export function answerKept(request: FastifyRequest): void {
  request.idempotency = null;
}

/** An answer as a write keeps it on a key, and as it is then sent: JSON text with its status. */
export interface JsonAnswer {
  status: number;
  json: string;
}

/** A keyed request's answer, made and kept in its write's transaction (see `KeptAnswer`). */
export interface AnswerInWrite<R> {
  /** For the store's write: made there of what it wrote. */
  keyAnswer: KeptAnswer<R>;
  /**
   * The answer the committed write made, to be sent as it is: kept with the write (unless a repeat
   * took the key past its lock, which then answers for it), nothing is left to keep as it is sent.
   * Null when it made none.
   */
  kept(): JsonAnswer | null;
}

/**
 * For a write that keeps the request's answer in its own transaction: `make` turns what it wrote
 * into the answer (null: none kept, the key freed as the request ends). Undefined when the request
 * holds no key: the write then keeps nothing and pays nothing for it.
 */
export function answerInWrite<R>(
  request: FastifyRequest,
  make: (written: R) => JsonAnswer | null,
): AnswerInWrite<R> | undefined {
  const held = heldKey(request);
  if (!held) return undefined;
  // The last made is the committed transaction's: one that rolled back and ran again made anew.
  let made: JsonAnswer | null = null;
  return {
    keyAnswer: {
      held,
      answer: (written) => {
        made = make(written);
        return made && { status: made.status, body: made.json };
      },
    },
    kept: () => {
      if (made) answerKept(request);
      return made;
    },
  };
}

/**
 * The keys an application takes with it: an admin's, taken on paths (or bodies) that name it by
 * one of `names` (its id or uid), forgotten when the application is deleted, or gives up its uid, so a
 * key used before never answers for an application made later with that uid. An application
 * token's keys are scoped by the token, which never outlives its application nor reaches another.
 */
export function applicationKeys(names: readonly string[]): IdempotencyScopes {
  const post = (path: string) => `${ADMIN}:POST ${path}`;
  return {
    exact: names.flatMap((n) => [
      post(`/api/v1/auth/app-portal-access/${n}`),
      ...[...NAMING_IN_BODY]
        .filter(([, named]) => named.names === "app")
        .map(([path]) => post(path + naming("app", n))),
    ]),
    prefixes: names.flatMap((n) => [
      post(`/api/v1/app/${n}/`),
      post(`/api/v1/auth/app/${n}/`),
      // A bulk replay that also names an endpoint; no uid holds a space, so no other app's.
      post(`${BULK_REPLAY}${naming("app", n)} `),
    ]),
  };
}

/**
 * The keys a change of an application forgets as it is written: those taken under the uid it
 * gives up (see {@link applicationKeys}); none when it keeps its uid or had none.
 */
export function applicationKeysGivenUp(
  before: Application,
  after: Application,
): IdempotencyScopes | null {
  return before.uid !== null && before.uid !== after.uid ? applicationKeys([before.uid]) : null;
}

/**
 * The keys an endpoint of `app` takes with it (`app` null for an operational webhook endpoint):
 * those of the paths that name it by one of `names` (its id or uid), the resend of a message to
 * it among them, of its creation with that uid, and of a bulk replay naming it (an admin's only,
 * as the DLQ is); taken by an admin token or one of the application's that may still send at
 * `now`. Forgotten as it is deleted or gives up its uid, so a key used before never answers for
 * an endpoint made later with that uid.
 */
export function endpointKeys(
  app: Application | null,
  names: readonly string[],
  now: number,
): EndpointKeys {
  const homes = app
    ? namesOf(app).map((a) => fillParams(APP_ENDPOINTS, { app_id: a }))
    : [OPERATIONAL_ENDPOINTS];
  const replays = app
    ? namesOf(app).flatMap((a) =>
        names.map((n) => `${ADMIN}:POST ${BULK_REPLAY}${naming("app", a)}${naming("endpoint", n)}`),
      )
    : [];
  const scopes = (appTokenIds: readonly string[]): IdempotencyScopes => {
    const posts = [ADMIN, ...appTokenIds.map(appToken)].flatMap((who) =>
      homes.map((home) => `${who}:POST ${home}`),
    );
    return {
      exact: [
        ...replays,
        ...posts.flatMap((post) => names.map((n) => post + naming("endpoint", n))),
      ],
      prefixes: posts.flatMap((post) => names.map((n) => `${post}/${n}/`)),
    };
  };
  return { now, scopes };
}

/**
 * The keys an endpoint's change forgets as it is written: those taken under the uid it gives up
 * (see {@link endpointKeys}); none when it keeps its uid or had none.
 */
export function endpointKeysGivenUp(
  app: Application | null,
  before: Endpoint,
  after: Endpoint,
  now: number,
): EndpointKeys | null {
  return before.uid !== null && before.uid !== after.uid
    ? endpointKeys(app, [before.uid], now)
    : null;
}

/**
 * The keys of an event type's creation, forgotten as it is deleted or archived: a create with
 * the key then makes it (or brings it back) rather than replaying the first answer. Event types
 * are an admin's only.
 */
export function eventTypeKeys(name: string): IdempotencyScopes {
  return { exact: [`${ADMIN}:POST ${EVENT_TYPES}${naming("event type", name)}`], prefixes: [] };
}

/** The keys an event type's change forgets as it is written: its creation's, when it archives it. */
export function archivingKeys(
  before: EventType | null,
  after: EventType,
): IdempotencyScopes | null {
  return after.archived && !before?.archived ? eventTypeKeys(after.name) : null;
}

/** The names a path may give an application or endpoint by: its id, and its uid if it has one. */
export function namesOf(row: { id: string; uid: string | null }): string[] {
  return row.uid === null ? [row.id] : [row.id, row.uid];
}

function appToken(tokenId: string): string {
  return `app ${tokenId}`;
}

function replay(reply: FastifyReply, status: number, body: string): FastifyReply {
  reply.header("idempotent-replayed", "true").code(status);
  if (status === 204 || body === "") return reply.send();
  return reply.type("application/json; charset=utf-8").send(body);
}

/** What a key's scope adds for what a body names, on the routes that take one. */
function bodyNaming(routeUrl: string, body: unknown): string {
  const named = NAMING_IN_BODY.get(routeUrl);
  if (named === undefined) return "";
  const fields = body as Partial<Record<Naming["field"] | "endpointId", unknown>> | null;
  const name = fields?.[named.field];
  // An appId or name that is no string is refused by the route (422) and keeps no answer. A
  // creation without a uid names nothing its key could go with: it replays what it made,
  // deleted or not (docs/api.md).
  // So is an endpoint named without its application (a bulk replay's endpointId alone): only by
  // its id, which no other endpoint ever takes, so its key need not go with it.
  if (typeof name !== "string") return "";
  const then = named.then === undefined ? undefined : fields?.[named.then];
  return naming(named.names, name) + (typeof then === "string" ? naming("endpoint", then) : "");
}

function naming(what: Naming["names"], name: string): string {
  return ` for ${what} ${name}`;
}

// The scope names the resource the key acts on, so one key may be reused on another path.
function fillParams(routeUrl: string, params: unknown): string {
  const values = (params ?? {}) as Record<string, unknown>;
  return routeUrl.replace(/:(\w+)/g, (_, name: string) => String(values[name] ?? ""));
}

// The query takes part too: `?get_if_exists=true` with the same body is a different request.
function fingerprint(request: FastifyRequest): string {
  const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : "";
  return createHash("sha256")
    .update(query, "utf8")
    .update("\n")
    .update(request.rawBody ?? Buffer.alloc(0))
    .digest("hex");
}

function payloadText(payload: unknown): string | null {
  if (payload === undefined || payload === null) return "";
  if (typeof payload === "string") return payload;
  if (Buffer.isBuffer(payload)) return payload.toString("utf8");
  return null;
}

declare module "fastify" {
  interface FastifyRequest {
    /** The idempotency key this request holds until its answer is recorded. */
    idempotency: KeyInHand | null;
  }
}
