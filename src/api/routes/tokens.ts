/** API tokens (hookline's addition): admins create, list and revoke who may call the API. */
import { z } from "zod";
import type { ApiToken } from "../../domain/types.js";
import { NotFoundError, ValidationError } from "../../errors.js";
import { newId } from "../../ids.js";
import { newPlainToken, tokenCacheFor, tokenDigest } from "../auth.js";
import type { ApiDeps } from "../deps.js";
import { answerInWrite } from "../idempotency.js";
import { defineRoute, noContent, ok, type RouteDef } from "../route.js";
import { refuseAccessToSystemApp } from "../system-guard.js";
import { listQueryOf } from "../validation.js";
import {
  HttpError,
  HttpValidationError,
  iso,
  listAnswer,
  listOf,
  Timestamp,
} from "../schemas/common.js";

const TAG = "API Token";

const ApiTokenIn = z
  .object({
    name: z.string().trim().min(1).max(256),
    scope: z.enum(["admin", "app"]),
    /** The application (id or uid) an `app` token is bound to. */
    appId: z.string().min(1).max(256).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.scope === "app" && v.appId === undefined) {
      ctx.addIssue({ code: "custom", path: ["appId"], message: "an app token needs an appId" });
    }
    if (v.scope === "admin" && v.appId !== undefined) {
      ctx.addIssue({ code: "custom", path: ["appId"], message: "an admin token has no appId" });
    }
  });

const ApiTokenOut = z.object({
  id: z.string(),
  name: z.string(),
  scope: z.enum(["admin", "app"]),
  appId: z.string().nullable(),
  createdAt: Timestamp,
  revokedAt: Timestamp.nullable(),
  /** When it stops working (customer portal links); null: never. */
  expiresAt: Timestamp.nullable(),
});

const ApiTokenCreatedOut = ApiTokenOut.extend({
  /** The token itself: shown in this answer only, never again. */
  token: z.string(),
});

/** A token as listed: never its hash. */
const apiTokenOut = (t: ApiToken): z.output<typeof ApiTokenOut> => ({
  id: t.id,
  name: t.name,
  scope: t.scope,
  appId: t.appId,
  createdAt: iso(t.createdAt),
  revokedAt: iso(t.revokedAt),
  expiresAt: iso(t.expiresAt ?? null),
});

/** /api/v1/tokens: admin tokens only (the default for routes outside an application). */
export function tokenRoutes(deps: ApiDeps): RouteDef[] {
  const { store, clock } = deps;
  const base = "/api/v1/tokens";
  const common = { tag: TAG, extension: true };
  return [
    defineRoute({
      ...common,
      method: "POST",
      path: base,
      operationId: "hookline.token.create",
      summary: "Create an API token (admin, or bound to one application); the token is shown once",
      body: ApiTokenIn,
      responses: {
        201: { description: "The token, with its secret", schema: ApiTokenCreatedOut },
        409: { description: "The application is hookline's own", schema: HttpError },
        422: { description: "Invalid input", schema: HttpValidationError },
      },
      handler: async ({ request, body }) => {
        let appId: string | null = null;
        if (body.scope === "app") {
          const app = await store.findApplication(body.appId!);
          if (!app) {
            throw new ValidationError([
              { loc: ["body", "appId"], msg: "no such application", type: "value_error" },
            ]);
          }
          refuseAccessToSystemApp(app);
          appId = app.id;
        }
        const now = clock.now();
        const plain = newPlainToken(body.scope);
        // Kept in the token's own transaction: kept after it, an answer that failed to be kept let
        // a retry make a second token, the first left valid with its secret lost.
        const answer = (made: ApiToken) => ({
          status: 201,
          json: JSON.stringify({ ...apiTokenOut(made), token: plain }),
        });
        const keyed = answerInWrite(request, answer);
        const token = await store.createApiToken(
          {
            id: newId("tok", now),
            name: body.name,
            scope: body.scope,
            appId,
            hash: tokenDigest(plain).toString("hex"),
            createdAt: now,
            revokedAt: null,
          },
          keyed?.keyAnswer,
        );
        return keyed?.kept() ?? answer(token);
      },
    }),
    defineRoute({
      ...common,
      method: "GET",
      path: base,
      operationId: "hookline.token.list",
      summary: "List API tokens, revoked ones too (never their secrets), oldest first",
      query: listQueryOf("tok"),
      responses: { 200: { description: "A page of tokens", schema: listOf(ApiTokenOut) } },
      handler: async ({ query }) => {
        const page = await store.listApiTokens(query);
        return ok(listAnswer({ ...page, data: page.data.map(apiTokenOut) }));
      },
    }),
    defineRoute({
      ...common,
      method: "DELETE",
      path: `${base}/{token_id}`,
      operationId: "hookline.token.revoke",
      summary: "Revoke an API token: it is refused from now on",
      responses: {
        204: { description: "Revoked" },
        404: { description: "No such token", schema: HttpError },
      },
      handler: async ({ params }) => {
        const revoked = await store.revokeApiToken(params.token_id!, clock.now());
        tokenCacheFor(store).clear();
        if (!revoked) throw new NotFoundError(`token ${params.token_id}`);
        return noContent();
      },
    }),
  ];
}
