/**
 * A page of an application's endpoints with their recent health in one answer, for the endpoints
 * page. That page asked for each endpoint's attempt stats apart: a request per endpoint on every
 * refresh, 250 of them for a full page, each paying for its token check and its round trip.
 */
import { z } from "zod";
import type { Store } from "../../store/port.js";
import type { ApiDeps } from "../deps.js";
import { requireApp } from "../lookup.js";
import { defineRoute, ok, type RouteDef } from "../route.js";
import { HttpError, HttpValidationError, iso, listAnswer, listOf } from "../schemas/common.js";
import { listQueryOf } from "../validation.js";
import { WindowMinutes } from "./dashboard-data.js";

const MINUTE = 60_000;

const HealthQuery = listQueryOf("ep").extend({ minutes: WindowMinutes });

const EndpointHealthOut = z.object({
  endpointId: z.string(),
  /** Attempts in the window, and how many of them succeeded. */
  attempts: z.int(),
  successes: z.int(),
  /** Null when there was no attempt. */
  successRate: z.number().nullable(),
  meanDurationMs: z.int().nullable(),
});

type EndpointHealth = z.output<typeof EndpointHealthOut>;

/** One endpoint's attempts since `since`, summed over the store's buckets. */
async function healthOf(store: Store, endpointId: string, since: number, windowMs: number) {
  // A bucket as wide as the window: the store groups by whole buckets from the epoch but counts
  // only attempts at or after `since`, so the window is exact and spans at most two buckets.
  const buckets = await store.attemptBuckets({ endpointId, since, bucketMs: windowMs });
  let attempts = 0;
  let successes = 0;
  let durationMs = 0;
  for (const b of buckets) {
    attempts += b.attempts;
    successes += b.successes;
    durationMs += b.meanDurationMs * b.attempts;
  }
  const health: EndpointHealth = {
    endpointId,
    attempts,
    successes,
    successRate: attempts ? successes / attempts : null,
    meanDurationMs: attempts ? Math.round(durationMs / attempts) : null,
  };
  return health;
}

export function endpointHealthRoutes(deps: ApiDeps): RouteDef[] {
  const { store, clock } = deps;
  return [
    defineRoute({
      method: "GET",
      path: "/api/v1/app/{app_id}/endpoint-health",
      operationId: "hookline.endpoint.health-list",
      summary:
        "Each endpoint's attempts, success rate and mean duration over the last `minutes`, a " +
        "page at a time in the endpoint list's order (the same `limit`, `iterator` and `order`)",
      tag: "Endpoint",
      extension: true,
      query: HealthQuery,
      responses: {
        200: {
          description: "A page of endpoints' health, with the window's start",
          schema: listOf(EndpointHealthOut).extend({ since: z.iso.datetime() }),
        },
        404: { description: "No such application", schema: HttpError },
        422: { description: "Invalid input", schema: HttpValidationError },
      },
      handler: async ({ params, query }) => {
        const app = await requireApp(store, params.app_id!);
        const { minutes, ...paging } = query;
        const page = await store.listEndpoints(app.id, {
          ...paging,
          order: paging.order ?? "descending",
        });
        const windowMs = minutes * MINUTE;
        const since = clock.now() - windowMs;
        const data = await Promise.all(
          page.data.map((ep) => healthOf(store, ep.id, since, windowMs)),
        );
        return ok({ ...listAnswer({ ...page, data }), since: iso(since) });
      },
    }),
  ];
}
