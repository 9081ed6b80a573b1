/** Svix event types: /api/v1/event-type. */
import { z } from "zod";
import { seesEventType } from "../../domain/feature-flags.js";
import type { EventType } from "../../domain/types.js";
import { ConflictError, NotFoundError } from "../../errors.js";
import { featureFlagsOf } from "../auth.js";
import { archivingKeys, eventTypeKeys } from "../idempotency.js";
import type { ApiDeps } from "../deps.js";
import { created, defineRoute, noContent, ok, type RouteDef } from "../route.js";
import { HttpError, HttpValidationError, listAnswer, listOf } from "../schemas/common.js";
import {
  EventTypeIn,
  EventTypeOut,
  EventTypePatch,
  EventTypeUpdate,
  eventTypeOut,
  flagsOf,
  flagsOfChange,
} from "../schemas/event-type.js";
import { changeEventType, RACED } from "../stored-change.js";
import { numbersNotKept } from "../json-numbers.js";
import { memberBytes } from "../payload-bytes.js";
import { EventTypeName, ListQuery, QueryBool, parseWith, throwIfProblems } from "../validation.js";

const TAG = "Event Type";
const errors = {
  404: { description: "No such event type", schema: HttpError },
  422: { description: "Invalid input", schema: HttpValidationError },
};

/**
 * Refuses `schemas` holding a number that would be kept as another (1e400 as null): they are
 * kept parsed, as doubles, where a message's payload is kept as written.
 */
function schemasKeptAsSent(raw: Buffer | null, schemas: object | null | undefined): void {
  const sent = schemas && raw ? memberBytes(raw, "schemas") : undefined;
  if (sent) throwIfProblems(numbersNotKept(sent.toString("utf8"), schemas, ["body", "schemas"]));
}

export function eventTypeRoutes(deps: ApiDeps): RouteDef[] {
  const { store, clock } = deps;
  const base = "/api/v1/event-type";
  const load = async (name: string): Promise<EventType> => {
    const et = await store.findEventType(name);
    if (!et) throw new NotFoundError(`event type ${name}`);
    return et;
  };
  return [
    defineRoute({
      method: "GET",
      access: "any",
      path: base,
      operationId: "v1.event-type.list",
      summary: "List event types (archived ones only with include_archived=true)",
      tag: TAG,
      query: ListQuery.extend({
        // Event types are paged by name: the last name of the page before.
        iterator: EventTypeName.optional(),
        include_archived: QueryBool.optional(),
        with_content: QueryBool.optional(),
      }),
      responses: { 200: { description: "A page of event types", schema: listOf(EventTypeOut) } },
      handler: async ({ query, request }) => {
        const page = await store.listEventTypes({
          ...query,
          includeArchived: query.include_archived ?? false,
          featureFlags: featureFlagsOf(request) ?? undefined,
        });
        const data = page.data.map((et) => eventTypeOut(et, query.with_content ?? false));
        return ok(listAnswer({ ...page, data }));
      },
    }),
    defineRoute({
      method: "POST",
      path: base,
      operationId: "v1.event-type.create",
      summary:
        "Create an event type, or bring back an archived one with this name (with the fields sent)",
      tag: TAG,
      body: EventTypeIn,
      freeJson: ["schemas"],
      responses: {
        201: { description: "Created, or unarchived", schema: EventTypeOut },
        409: { description: `A live event type has this name, or: ${RACED}`, schema: HttpError },
        422: errors[422],
      },
      handler: async ({ body, request }) => {
        schemasKeptAsSent(request.rawBody, body.schemas);
        const now = clock.now();
        const fields = {
          name: body.name,
          description: body.description,
          archived: body.archived ?? false,
          deprecated: body.deprecated ?? false,
          featureFlags: flagsOf(body) ?? null,
          groupName: body.groupName ?? null,
          schemas: body.schemas ?? null,
        };
        try {
          return created(
            eventTypeOut(
              await store.createEventType({ ...fields, createdAt: now, updatedAt: now }),
            ),
          );
        } catch (err) {
          if (!(err instanceof ConflictError)) throw err;
          // Svix's create is how an archived event type is unarchived: it takes the fields sent.
          // Only an archived one is replaced; a live one (or one gone meanwhile) stays a conflict.
          const archived = async () => {
            const et = await store.findEventType(body.name);
            if (!et?.archived) throw err;
            return et;
          };
          const { after } = await changeEventType(deps, archived, (et, at) => ({
            ...fields,
            createdAt: et.createdAt,
            updatedAt: at,
          }));
          return created(eventTypeOut(after));
        }
      },
    }),
    defineRoute({
      method: "GET",
      access: "any",
      path: `${base}/{event_type_name}`,
      operationId: "v1.event-type.get",
      summary: "Get an event type",
      tag: TAG,
      responses: { 200: { description: "The event type", schema: EventTypeOut }, 404: errors[404] },
      handler: async ({ params, request }) => {
        const et = await load(params.event_type_name!);
        // One behind a flag the token was not given answers as a missing one does.
        if (!seesEventType(et, featureFlagsOf(request))) {
          throw new NotFoundError(`event type ${et.name}`);
        }
        return ok(eventTypeOut(et));
      },
    }),
    defineRoute({
      method: "PUT",
      path: `${base}/{event_type_name}`,
      operationId: "v1.event-type.update",
      summary: "Replace an event type, creating it if it does not exist",
      tag: TAG,
      body: EventTypeUpdate,
      freeJson: ["schemas"],
      responses: {
        200: { description: "The updated event type", schema: EventTypeOut },
        201: { description: "Created", schema: EventTypeOut },
        422: errors[422],
      },
      handler: async ({ params, body, request }) => {
        schemasKeptAsSent(request.rawBody, body.schemas);
        const name = params.event_type_name!;
        const now = clock.now();
        const existing = await store.findEventType(name);
        const flags = flagsOfChange(body, existing);
        const et: EventType = {
          name,
          description: body.description,
          archived: body.archived ?? false,
          deprecated: body.deprecated ?? false,
          featureFlags: flags ?? null,
          groupName: body.groupName ?? null,
          schemas: body.schemas ?? null,
          createdAt: existing?.createdAt ?? now,
          updatedAt: now,
        };
        // A replacement sets every field, so it need not check what it read.
        if (existing && (await store.updateEventType(et, undefined, archivingKeys(existing, et)))) {
          return ok(eventTypeOut(et));
        }
        // New, or deleted since it was read. Any existing name may be addressed; a new one must
        // be a valid name.
        parseWith(EventTypeName, name, ["path", "event_type_name"]);
        const fresh = { ...et, createdAt: now };
        try {
          return created(eventTypeOut(await store.createEventType(fresh)));
        } catch (err) {
          // Another call created it meanwhile: this one replaces that, as if it came second.
          const replaced =
            err instanceof ConflictError &&
            (await store.updateEventType(fresh, undefined, archivingKeys(null, fresh)));
          if (!replaced) throw err;
          return ok(eventTypeOut((await store.findEventType(name)) ?? fresh));
        }
      },
    }),
    defineRoute({
      method: "PATCH",
      path: `${base}/{event_type_name}`,
      operationId: "v1.event-type.patch",
      summary: "Change some of an event type's fields",
      tag: TAG,
      body: EventTypePatch,
      freeJson: ["schemas"],
      responses: {
        200: { description: "The updated event type", schema: EventTypeOut },
        ...errors,
        409: { description: RACED, schema: HttpError },
      },
      handler: async ({ params, body, request }) => {
        schemasKeptAsSent(request.rawBody, body.schemas);
        const { after } = await changeEventType(
          deps,
          () => load(params.event_type_name!),
          (et, at) => {
            const flags = flagsOfChange(body, et);
            return {
              ...et,
              description: body.description ?? et.description,
              archived: body.archived ?? et.archived,
              deprecated: body.deprecated ?? et.deprecated,
              featureFlags: flags === undefined ? et.featureFlags : flags,
              groupName: body.groupName === undefined ? et.groupName : body.groupName,
              schemas: body.schemas === undefined ? et.schemas : body.schemas,
              updatedAt: at,
            };
          },
        );
        return ok(eventTypeOut(after));
      },
    }),
    defineRoute({
      method: "DELETE",
      path: `${base}/{event_type_name}`,
      operationId: "v1.event-type.delete",
      summary: "Archive an event type (with expunge=true: delete it for good)",
      tag: TAG,
      query: z.object({ expunge: QueryBool.optional() }),
      responses: {
        204: { description: "Archived or deleted" },
        404: errors[404],
        409: { description: RACED, schema: HttpError },
      },
      handler: async ({ params, query }) => {
        const read = () => load(params.event_type_name!);
        if (query.expunge) {
          const { name } = await read();
          await store.deleteEventType(name, eventTypeKeys(name));
        } else
          await changeEventType(deps, read, (et, at) => ({ ...et, archived: true, updatedAt: at }));
        return noContent();
      },
    }),
  ];
}
