/**
 * The customer portal's way in (Svix-compatible): an admin asks for a link for one application and
 * gets a URL carrying a fresh application-scoped token that expires. The token travels in the URL
 * fragment, which browsers never send to a server, so it does not end up in access logs.
 */
import { z } from "zod";
import { newPlainToken, tokenCacheFor, tokenDigest } from "../api/auth.js";
import type { ApiDeps } from "../api/deps.js";
import { answerInWrite } from "../api/idempotency.js";
import { requireApp, requireOrCreateApp } from "../api/lookup.js";
import { defineRoute, noContent, type RouteDef } from "../api/route.js";
import { ApplicationIn } from "../api/schemas/application.js";
import { HttpError, HttpValidationError } from "../api/schemas/common.js";
import { FeatureFlag } from "../api/schemas/event-type.js";
import { refuseAccessToSystemApp } from "../api/system-guard.js";
import { Uid } from "../api/validation.js";
import { ValidationError } from "../errors.js";
import { newId } from "../ids.js";

/** A week, Svix's default lifetime for a portal link. */
const DEFAULT_EXPIRY_SECONDS = 7 * 24 * 3600;
const MAX_EXPIRY_SECONDS = 30 * 24 * 3600;

const NOT_SUPPORTED = "not supported by hookline: a portal link grants its whole application";

const AppPortalAccessIn = z
  .object({
    /** Seconds until the link stops working. */
    expiry: z.int().min(60).max(MAX_EXPIRY_SECONDS).nullable().optional(),
    /** Recorded in the token's name, so an operator can tell portal sessions apart. */
    sessionId: Uid.nullable().optional(),
    /** The link's token sees the event types behind these flags, besides those without any. */
    featureFlags: z.array(FeatureFlag).max(50).optional(),
    /** Created, with the path's app_id as its uid, when there is no such application yet. */
    application: ApplicationIn.nullable().optional(),
    readOnly: z.literal(false, { error: NOT_SUPPORTED }).nullable().optional(),
    capabilities: z.array(z.string()).max(0, { error: NOT_SUPPORTED }).nullable().optional(),
  })
  .optional();

const ApplicationTokenExpireIn = z
  .object({
    expiry: z
      .literal(0, { error: "not supported by hookline: portal tokens are revoked at once" })
      .nullable()
      .optional(),
    /** Only the links made with these session ids; all of the application's links if absent. */
    sessionIds: z.array(Uid).max(1_000).optional(),
  })
  .optional();

/**
 * Tokens expire-all reads at a time: one portal link per customer session adds up, and the
 * request holds no more of them than this.
 */
const EXPIRE_PAGE = 200;

/** The token name a portal link gets, which is how expire-all finds it again. */
const portalTokenName = (sessionId: string | null | undefined): string =>
  sessionId ? `portal:${sessionId}` : "portal";

const AppPortalAccessOut = z.object({
  url: z.string(),
  token: z.string(),
});

/**
 * Portal links: creating one and revoking an application's (admin tokens only), and a link's
 * token revoking itself (logout).
 */
export function portalAccessRoutes(deps: ApiDeps): RouteDef[] {
  const { store, clock, config } = deps;
  return [
    defineRoute({
      method: "POST",
      path: "/api/v1/auth/app-portal-access/{app_id}",
      operationId: "v1.authentication.app-portal-access",
      summary:
        "A customer portal link for one application: its URL carries an application-scoped " +
        "token that expires after `expiry` seconds (a week by default)",
      tag: "Authentication",
      body: AppPortalAccessIn,
      responses: {
        200: { description: "The link and its token", schema: AppPortalAccessOut },
        404: { description: "No such application", schema: HttpError },
        409: { description: "The application is hookline's own", schema: HttpError },
        422: { description: "Invalid input", schema: HttpValidationError },
      },
      handler: async ({ params, body, request }) => {
        const app = await requireOrCreateApp(deps, params.app_id!, body?.application);
        refuseAccessToSystemApp(app);
        const now = clock.now();
        const plain = newPlainToken("app");
        const base = config.publicUrl ?? `${request.protocol}://${request.host}`;
        const fragment = new URLSearchParams({ app: app.id, token: plain });
        const link = { url: `${base.replace(/\/$/, "")}/portal/#${fragment}`, token: plain };
        // Kept in the token's own transaction, as an API token's (routes/tokens.ts).
        const answer = { status: 200, json: JSON.stringify(link) };
        const keyed = answerInWrite(request, () => answer);
        await store.createApiToken(
          {
            id: newId("tok", now),
            name: portalTokenName(body?.sessionId),
            scope: "app",
            appId: app.id,
            hash: tokenDigest(plain).toString("hex"),
            createdAt: now,
            revokedAt: null,
            expiresAt: now + (body?.expiry ?? DEFAULT_EXPIRY_SECONDS) * 1_000,
            featureFlags: body?.featureFlags?.length ? body.featureFlags : null,
          },
          keyed?.keyAnswer,
        );
        return keyed?.kept() ?? answer;
      },
    }),
    defineRoute({
      method: "POST",
      path: "/api/v1/auth/app/{app_id}/expire-all",
      operationId: "v1.authentication.expire-all",
      summary:
        "Revoke the application's portal links at once (those of `sessionIds` only, when given); " +
        "its other API tokens are kept",
      tag: "Authentication",
      body: ApplicationTokenExpireIn,
      responses: {
        204: { description: "Revoked" },
        404: { description: "No such application", schema: HttpError },
        422: { description: "Invalid input", schema: HttpValidationError },
      },
      handler: async ({ params, body }) => {
        const app = await requireApp(store, params.app_id!);
        const names = body?.sessionIds ? new Set(body.sessionIds.map(portalTokenName)) : null;
        const isPortal = (name: string) =>
          names ? names.has(name) : name === "portal" || name.startsWith("portal:");
        const now = clock.now();
        // The application's live tokens a page at a time; a revoked one leaves the filter, but
        // the iterator (an id) already stands past it.
        let iterator: string | null = null;
        try {
          for (let done = false; !done;) {
            const page = await store.listApiTokens({
              limit: EXPIRE_PAGE,
              iterator,
              appId: app.id,
              unrevoked: true,
            });
            for (const t of page.data) {
              if (isPortal(t.name)) await store.revokeApiToken(t.id, now);
            }
            ({ iterator, done } = page);
          }
        } finally {
          // Those revoked before a failure are refused at once too.
          tokenCacheFor(store).clear();
        }
        return noContent();
      },
    }),
    defineRoute({
      method: "POST",
      path: "/api/v1/auth/logout",
      operationId: "v1.authentication.logout",
      access: "any",
      summary: "Revoke the application token (a portal link's) this request is made with",
      tag: "Authentication",
      responses: {
        204: { description: "Revoked" },
        422: { description: "Not an application's token", schema: HttpValidationError },
      },
      handler: async ({ request }) => {
        const { identity } = request;
        // An admin token is not a session: refusing here keeps a stray logout from locking out
        // the operator (tokens are revoked with DELETE /api/v1/tokens/{id}).
        if (identity?.scope !== "app") {
          throw new ValidationError([
            {
              loc: ["header", "authorization"],
              msg: "only an application's token can log out; an admin token is revoked with DELETE /api/v1/tokens/{id}",
              type: "value_error",
            },
          ]);
        }
        await store.revokeApiToken(identity.tokenId, clock.now());
        tokenCacheFor(store).clear();
        return noContent();
      },
    }),
  ];
}
