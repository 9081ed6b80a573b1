/** Svix applications: /api/v1/app. */
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { Application } from "../../domain/types.js";
import { ConflictError, type FieldProblem } from "../../errors.js";
import { newId } from "../../ids.js";
import { tokenCacheFor } from "../auth.js";
import { endpointsDeleted } from "../../engine/endpoints-deleted.js";
import type { ApiDeps } from "../deps.js";
import { answerInWrite, applicationKeys, namesOf } from "../idempotency.js";
import { endpointPages, requireApp, requireChangeableApp } from "../lookup.js";
import { uidOfPut, updateOrCreate } from "../put-or-create.js";
import { defineRoute, noContent, ok, type Answer, type RouteDef } from "../route.js";
import {
  ApplicationIn,
  ApplicationOut,
  ApplicationPatch,
  applicationOut,
  newApplication,
  type ApplicationInput,
  rateLimitOf,
} from "../schemas/application.js";
import { HttpError, HttpValidationError, listAnswer, listOf } from "../schemas/common.js";
import { changeApplication, RACED } from "../stored-change.js";
import { refuseReservedUid } from "../system-guard.js";
import { listQueryOf, QueryBool } from "../validation.js";

const TAG = "Application";
/**
 * Changing or deleting the application record is for admins: an application's token (a portal
 * link's too) that could set the record's uid to one not yet taken would capture the messages later
 * sent for a new customer with that uid. Reading its own record stays open to it.
 */
const ADMIN_ONLY = "admin";
const errors = {
  404: { description: "No such application", schema: HttpError },
  422: {
    description: "Invalid input, or a uid reserved for hookline",
    schema: HttpValidationError,
  },
};
/** hookline's own applications are read-only here (see system-guard.ts). */
const HOOKLINES = "the application is hookline's own (operational webhooks, failure drill)";

export function applicationRoutes(deps: ApiDeps): RouteDef[] {
  const { store, clock, engine } = deps;
  /**
   * The application a PUT or PATCH changes: not one of hookline's own, and not taking a uid
   * reserved for them (one it holds already, from before they were reserved, it keeps).
   */
  const changeableTakingUid = async (
    idOrUid: string,
    uid: string | null | undefined,
    uidLoc: FieldProblem["loc"],
  ): Promise<Application> => {
    const app = await requireChangeableApp(store, idOrUid);
    refuseReservedUid(uid, uidLoc, app.uid);
    return app;
  };
  /**
   * A new application, with a new id: what a POST makes, and a PUT naming none. A keyed POST's
   * answer is kept in the application's own transaction: kept after it, an answer that failed to
   * be kept let a retry of a create without a uid make a second application.
   */
  const create = async (request: FastifyRequest, input: ApplicationInput): Promise<Answer> => {
    const now = clock.now();
    const answer = (made: Application) => ({
      status: 201,
      json: JSON.stringify(applicationOut(made)),
    });
    const keyed = answerInWrite(request, answer);
    const app = await store.createApplication(
      newApplication(newId("app", now), input, now),
      keyed?.keyAnswer,
    );
    return keyed?.kept() ?? answer(app);
  };
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/app",
      operationId: "v1.application.list",
      summary: "List applications",
      tag: TAG,
      query: listQueryOf("app").extend({
        exclude_apps_with_no_endpoints: QueryBool.optional(),
        /** Those whose endpoints are all disabled (an application without any is kept). */
        exclude_apps_with_disabled_endpoints: QueryBool.optional(),
        // hookline has no Svix Play endpoints, so leaving out the applications with one leaves
        // out nothing.
        exclude_apps_with_svix_play_endpoints: QueryBool.optional(),
      }),
      responses: { 200: { description: "A page of applications", schema: listOf(ApplicationOut) } },
      handler: async ({ query }) => {
        const page = await store.listApplications({
          limit: query.limit,
          iterator: query.iterator,
          order: query.order,
          excludeWithNoEndpoints: query.exclude_apps_with_no_endpoints,
          excludeWithOnlyDisabledEndpoints: query.exclude_apps_with_disabled_endpoints,
        });
        return ok(listAnswer({ ...page, data: page.data.map(applicationOut) }));
      },
    }),
    defineRoute({
      method: "POST",
      path: "/api/v1/app",
      operationId: "v1.application.create",
      summary: "Create an application (with get_if_exists=true: or get the one with this uid)",
      tag: TAG,
      query: z.object({ get_if_exists: QueryBool.optional() }),
      body: ApplicationIn,
      responses: {
        200: { description: "The existing application with this uid", schema: ApplicationOut },
        201: { description: "Created", schema: ApplicationOut },
        409: { description: "The uid is taken", schema: HttpError },
        422: errors[422],
      },
      handler: async ({ request, query, body }) => {
        // Before get_if_exists, which would hand out hookline's application as the caller's.
        refuseReservedUid(body.uid, ["body", "uid"]);
        const existing = async (): Promise<Application | null> => {
          if (!query.get_if_exists || !body.uid) return null;
          const app = await store.findApplication(body.uid);
          return app?.uid === body.uid ? app : null;
        };
        const found = await existing();
        if (found) return ok(applicationOut(found));
        try {
          return await create(request, body);
        } catch (err) {
          // Two get-or-create calls raced: the loser answers with the winner's application.
          const winner = err instanceof ConflictError ? await existing() : null;
          if (winner) return ok(applicationOut(winner));
          throw err;
        }
      },
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/app/{app_id}",
      operationId: "v1.application.get",
      summary: "Get an application by id or uid",
      tag: TAG,
      responses: {
        200: { description: "The application", schema: ApplicationOut },
        404: errors[404],
      },
      handler: async ({ params }) => ok(applicationOut(await requireApp(store, params.app_id!))),
    }),
    defineRoute({
      method: "PUT",
      path: "/api/v1/app/{app_id}",
      operationId: "v1.application.update",
      access: ADMIN_ONLY,
      summary:
        "Replace an application's settings, or create it as a POST would (201) when none has " +
        "this id or uid; a body without a uid keeps the path's, unless the path is an app_ id",
      tag: TAG,
      body: ApplicationIn,
      responses: {
        200: { description: "The updated application", schema: ApplicationOut },
        201: { description: "Created: no application had this id or uid", schema: ApplicationOut },
        404: { description: "Deleted by another request while this one ran", schema: HttpError },
        409: { description: `The uid is taken, ${HOOKLINES}, or: ${RACED}`, schema: HttpError },
        422: errors[422],
      },
      handler: async ({ request, params, body }) => {
        const path = params.app_id!;
        const input = { ...body, uid: uidOfPut(path, "app", body.uid) };
        const uidLoc = body.uid ? ["body", "uid"] : ["path", "app_id"];
        const update = async () => {
          const { after } = await changeApplication(
            deps,
            () => changeableTakingUid(path, input.uid, uidLoc),
            (app, at) => ({
              ...app,
              uid: input.uid,
              name: body.name,
              rateLimit: rateLimitOf(body, app.rateLimit) ?? null,
              metadata: body.metadata ?? {},
              // Svix clients do not know this field; a PUT without it keeps the policy.
              deliveryPolicy:
                body.deliveryPolicy === undefined ? app.deliveryPolicy : body.deliveryPolicy,
              updatedAt: at,
            }),
          );
          engine.invalidateApplication(after.id);
          return ok(applicationOut(after));
        };
        return updateOrCreate(
          async () => (await store.findApplication(path)) !== null,
          update,
          () => {
            refuseReservedUid(input.uid, uidLoc);
            return create(request, input);
          },
        );
      },
    }),
    defineRoute({
      method: "PATCH",
      path: "/api/v1/app/{app_id}",
      operationId: "v1.application.patch",
      access: ADMIN_ONLY,
      summary: "Change some of an application's settings",
      tag: TAG,
      body: ApplicationPatch,
      responses: {
        200: { description: "The updated application", schema: ApplicationOut },
        ...errors,
        409: { description: `The uid is taken, ${HOOKLINES}, or: ${RACED}`, schema: HttpError },
      },
      handler: async ({ params, body }) => {
        const { after } = await changeApplication(
          deps,
          () => changeableTakingUid(params.app_id!, body.uid, ["body", "uid"]),
          (app, at) => {
            const rateLimit = rateLimitOf(body, app.rateLimit);
            return {
              ...app,
              uid: body.uid === undefined ? app.uid : body.uid,
              name: body.name ?? app.name,
              rateLimit: rateLimit === undefined ? app.rateLimit : rateLimit,
              metadata: body.metadata ?? app.metadata,
              deliveryPolicy:
                body.deliveryPolicy === undefined ? app.deliveryPolicy : body.deliveryPolicy,
              updatedAt: at,
            };
          },
        );
        engine.invalidateApplication(after.id);
        return ok(applicationOut(after));
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/api/v1/app/{app_id}",
      operationId: "v1.application.delete",
      access: ADMIN_ONLY,
      summary: "Delete an application with its endpoints, messages, attempts and API tokens",
      tag: TAG,
      responses: {
        204: { description: "Deleted" },
        404: errors[404],
        409: { description: HOOKLINES, schema: HttpError },
      },
      handler: async ({ params }) => {
        const app = await requireChangeableApp(store, params.app_id!);
        const endpointIds: string[] = [];
        for await (const page of endpointPages(store, app.id)) {
          endpointIds.push(...page.map((e) => e.id));
        }
        // Its keys go with it: one used before must not answer for an application made later
        // with its uid (with that application's message, say, of an application that is gone).
        await store.deleteApplication(app.id, applicationKeys(namesOf(app)));
        // Its tokens went with it: refused from the next request, as a revoked one is.
        tokenCacheFor(store).clear();
        endpointsDeleted(deps, endpointIds);
        engine.invalidateApplication(app.id);
        return noContent();
      },
    }),
  ];
}
