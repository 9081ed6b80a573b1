/**
 * An endpoint shows the concurrency limit its policy now sets as soon as the policy changes. The
 * engine takes a changed policy only when it next sends to the endpoint, so until then its live
 * numbers are of the limit before the change; the view shows the new limit, and the effective
 * limit the engine will use under it: the new one, or a slow endpoint's lower limit.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EndpointLiveStatus } from "../../src/engine/control.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
let endpointId = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "limits" })).id;
  endpointId = (await api.svix.endpoint.create(appId, { url: "https://example.com/hook" })).id;
});
afterAll(async () => api.close());

// The engine's numbers for the endpoint, as it holds them before it reloads its settings.
const live = (limit: number, effectiveLimit: number): EndpointLiveStatus => ({
  limit,
  effectiveLimit,
  inFlight: 2,
  queued: 0,
  p99LatencyMs: null,
  circuit: { state: "closed", since: 0, reason: null, nextProbeAt: null, reopenCount: 0 },
});

async function concurrencyAfter(method: string, path: string, body: unknown) {
  const res = await api.call(method, `/api/v1/app/${appId}/endpoint/${endpointId}${path}`, body);
  expect(res.status).toBe(200);
  const answered = method === "PATCH" ? ((await res.json()) as { concurrency: unknown }) : null;
  const read = await api.call("GET", `/api/v1/app/${appId}/endpoint/${endpointId}`);
  return {
    answered: answered?.concurrency,
    read: ((await read.json()) as { concurrency: unknown }).concurrency,
  };
}

it("shows a lowered limit in the answer to the change and on every read after it", async () => {
  api.engine.status.set(endpointId, live(100, 100));
  const seen = await concurrencyAfter("PATCH", "", { deliveryPolicy: { concurrencyLimit: 7 } });
  const expected = { limit: 7, effectiveLimit: 7, inFlight: 2 };
  expect(seen).toEqual({ answered: expected, read: expected });
});

it("keeps a slow endpoint's lower effective limit, within the new limit", async () => {
  api.engine.status.set(endpointId, live(7, 4));
  const raised = await concurrencyAfter("PUT", "/delivery-policy", { concurrencyLimit: 50 });
  expect(raised.read).toEqual({ limit: 50, effectiveLimit: 4, inFlight: 2 });
  const lowered = await concurrencyAfter("PUT", "/delivery-policy", { concurrencyLimit: 3 });
  expect(lowered.read).toEqual({ limit: 3, effectiveLimit: 3, inFlight: 2 });
});
