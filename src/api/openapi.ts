/**
 * The OpenAPI 3.1 document of the API, written from the same route list that registers the routes
 * (schemas come from the zod schemas that validate them), so every route is documented as served.
 */
import { z } from "zod";
import { accessOf } from "./auth.js";
import type { RouteDef } from "./route.js";

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const out = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    target: "draft-2020-12",
  }) as Json;
  delete out.$schema;
  return out;
}

function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string", maxLength: 256 },
    description: describeParam(name!),
  }));
}

function describeParam(name: string): string {
  switch (name) {
    case "app_id":
      return "The application's id or uid";
    case "endpoint_id":
      return "The endpoint's id or uid";
    case "msg_id":
      return "The message's id or eventId";
    case "dlq_id":
      return "The dead-letter record's id (dlq_…)";
    case "job_id":
      return "The replay job's id (job_…)";
    default:
      return name.replace(/_/g, " ");
  }
}

function queryParameters(query: z.ZodType | undefined): Json[] {
  if (!(query instanceof z.ZodObject)) return [];
  return Object.entries(query.shape as Record<string, z.ZodType>).map(([name, field]) => ({
    name,
    in: "query",
    required: !field.safeParse(undefined).success,
    schema: jsonSchema(field, "input"),
  }));
}

const IDEMPOTENCY_KEY = {
  name: "idempotency-key",
  in: "header",
  required: false,
  schema: { type: "string", maxLength: 256 },
  description:
    "Repeating a POST with the same key within 24 h answers the first result again without repeating it",
};

/** The whole document for `routes`. */
export function openApiDocument(routes: readonly RouteDef[], version: string): Json {
  const paths: Record<string, Json> = {};
  const tags = new Set<string>();
  for (const route of routes) {
    tags.add(route.tag);
    const parameters = [...pathParameters(route.path), ...queryParameters(route.query)];
    if (route.method === "POST" && !route.public) parameters.push(IDEMPOTENCY_KEY);
    const responses: Json = {};
    for (const [status, doc] of Object.entries(route.responses)) {
      responses[status] = doc.schema
        ? {
            description: doc.description,
            content: { "application/json": { schema: jsonSchema(doc.schema, "output") } },
          }
        : { description: doc.description };
    }
    if (!route.public) responses["401"] = { description: "Missing or wrong admin token" };
    // Routes of `app` and `any` access answer another application's token 404, not 403 (auth.ts).
    if (accessOf(route) === "admin") {
      responses["403"] = { description: "An application's token: this route needs an admin token" };
    }
    const operation: Json = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      parameters,
      responses,
      security: route.public ? [] : [{ bearerAuth: [] }],
    };
    if (route.body) {
      operation.requestBody = {
        // A body that may be left out (a replay's optional note) is not required.
        required: !route.body.safeParse(undefined).success,
        content: { "application/json": { schema: jsonSchema(route.body, "input") } },
      };
    }
    if (route.extension) operation["x-hookline-extension"] = true;
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "hookline",
      version,
      description:
        "Self-hosted webhook delivery with the Svix v1 REST API. Operations and fields marked " +
        "x-hookline-extension are hookline's additions.",
    },
    tags: [...tags].map((name) => ({ name })),
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
    },
    security: [{ bearerAuth: [] }],
    paths,
  };
}
