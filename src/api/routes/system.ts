/** Unauthenticated routes: the health check and the OpenAPI document. */
import { z } from "zod";
import { pingWithin } from "../../observability/service.js";
import type { ApiDeps } from "../deps.js";
import { openApiDocument } from "../openapi.js";
import { defineRoute, noContent, ok, type RouteDef } from "../route.js";
import { HttpError } from "../schemas/common.js";

const TAG = "Health";
const API_VERSION = "1.0.0";

/** Health and OpenAPI; `documented` is every route, this one included, read when first asked. */
export function systemRoutes(deps: ApiDeps, documented: () => readonly RouteDef[]): RouteDef[] {
  let document: unknown = null;
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/health",
      operationId: "v1.health.get",
      summary: "204 when the API can reach its store (it answers within 2 seconds), else 503",
      tag: TAG,
      public: true,
      responses: {
        204: { description: "Healthy" },
        503: { description: "The store is unavailable", schema: HttpError },
      },
      handler: async () => {
        await pingWithin(deps.store);
        return noContent();
      },
    }),
    defineRoute({
      method: "GET",
      path: "/api/v1/openapi.json",
      operationId: "hookline.openapi",
      summary: "This API's OpenAPI 3.1 document",
      tag: TAG,
      public: true,
      extension: true,
      responses: {
        200: { description: "The document", schema: z.object({}).catchall(z.unknown()) },
      },
      handler: async () => {
        document ??= openApiDocument(documented(), API_VERSION);
        return ok(document);
      },
    }),
  ];
}
