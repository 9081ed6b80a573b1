import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
let epId: string;
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Extensions", uid: "ext" })).id;
  epId = (await api.svix.endpoint.create(appId, { url: "https://example.com/e", uid: "ext-ep" }))
    .id;
});
afterAll(async () => api.close());

async function getJson(path: string): Promise<Record<string, unknown>> {
  const res = await api.call("GET", path);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("hookline's extension fields and paths", () => {
  it("shows a new endpoint's health: closed circuit, default concurrency, no Retry-After yet", async () => {
    const ep = await getJson(`/api/v1/app/ext/endpoint/ext-ep`);
    expect(ep).toMatchObject({
      deliveryPolicy: null,
      disabledReason: null,
      circuit: { state: "closed", reason: null, nextProbeAt: null },
      concurrency: { limit: 100, effectiveLimit: 100, inFlight: 0 },
      retryAfter: { honoured: 0, capped: 0, ignored: 0 },
      lastSuccessAt: null,
    });
  });

  it("reports the circuit and its transitions newest first, from the store", async () => {
    const t0 = Date.parse("2030-01-01T00:00:00Z");
    await api.store.saveCircuit(
      epId,
      {
        state: "open",
        since: t0,
        reason: "5 consecutive failures",
        nextProbeAt: t0 + 300_000,
        reopenCount: 0,
        openedAt: t0,
      },
      { from: "closed", to: "open", at: t0, reason: "5 consecutive failures" },
    );
    await api.store.saveCircuit(
      epId,
      {
        state: "half-open",
        since: t0 + 300_000,
        reason: "probe succeeded",
        nextProbeAt: null,
        reopenCount: 0,
        openedAt: t0,
      },
      { from: "open", to: "half-open", at: t0 + 300_000, reason: "probe succeeded" },
    );
    const circuit = await getJson(`/api/v1/app/${appId}/endpoint/${epId}/circuit`);
    expect(circuit).toEqual({
      state: "half-open",
      since: "2030-01-01T00:05:00.000Z",
      reason: "probe succeeded",
      nextProbeAt: null,
      reopenCount: 0,
      openedAt: "2030-01-01T00:00:00.000Z",
      transitions: [
        {
          from: "open",
          to: "half-open",
          at: "2030-01-01T00:05:00.000Z",
          reason: "probe succeeded",
        },
        {
          from: "closed",
          to: "open",
          at: "2030-01-01T00:00:00.000Z",
          reason: "5 consecutive failures",
        },
      ],
    });
    const ep = await getJson(`/api/v1/app/${appId}/endpoint/${epId}`);
    expect(ep.circuit).toMatchObject({ state: "half-open" });
  });

  it("prefers the engine's live numbers when it has them", async () => {
    const since = Date.parse("2031-02-03T04:05:06Z");
    api.engine.status.set(epId, {
      limit: 100,
      effectiveLimit: 7,
      inFlight: 3,
      queued: 12,
      p99LatencyMs: 250,
      circuit: { state: "open", since, reason: "live", nextProbeAt: since + 1000, reopenCount: 2 },
    });
    try {
      const ep = await getJson(`/api/v1/app/${appId}/endpoint/${epId}`);
      expect(ep.concurrency).toEqual({ limit: 100, effectiveLimit: 7, inFlight: 3 });
      expect(ep.circuit).toEqual({
        state: "open",
        since: "2031-02-03T04:05:06.000Z",
        reason: "live",
        nextProbeAt: "2031-02-03T04:05:07.000Z",
      });
      const circuit = await getJson(`/api/v1/app/${appId}/endpoint/${epId}/circuit`);
      expect(circuit).toMatchObject({ state: "open", reopenCount: 2 });
    } finally {
      api.engine.status.delete(epId);
    }
  });

  it("publishes the retry schedule and says where it comes from", async () => {
    const schedule = await getJson(`/api/v1/app/${appId}/endpoint/${epId}/retry-schedule`);
    expect(schedule).toMatchObject({
      preset: "default",
      attempts: 8,
      source: "default",
      retryAfter: {
        honouredBelowSeconds: 14400,
        cappedToSeconds: 14400,
        ignoredAboveSeconds: 86400,
      },
      permanent: { statuses: [400, 404, 405, 410, 413, 415, 422], source: "default" },
    });
    expect(schedule.retries).toHaveLength(7);
    expect(typeof schedule.description).toBe("string");
  });

  it("sets, reads and clears application and endpoint delivery policies", async () => {
    const appPolicy = { retry: { preset: "svix" }, concurrencyLimit: 10, permanentStatuses: [400] };
    const put = await api.call("PUT", `/api/v1/app/${appId}/delivery-policy`, appPolicy);
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual(appPolicy);
    expect(await getJson(`/api/v1/app/${appId}/delivery-policy`)).toEqual(appPolicy);
    expect(api.engine.invalidatedApplications).toContain(appId);
    let schedule = await getJson(`/api/v1/app/${appId}/endpoint/${epId}/retry-schedule`);
    expect(schedule).toMatchObject({
      preset: "svix",
      source: "application",
      permanent: { statuses: [400, 410], source: "application" },
    });
    expect((await getJson(`/api/v1/app/${appId}/endpoint/${epId}`)).concurrency).toMatchObject({
      limit: 10,
    });

    const epPolicy = { retry: { delays: [1, 2, 3] }, permanentStatuses: [422, 409] };
    const epPut = await api.call(
      "PUT",
      `/api/v1/app/${appId}/endpoint/${epId}/delivery-policy`,
      epPolicy,
    );
    expect(epPut.status).toBe(200);
    expect(await getJson(`/api/v1/app/${appId}/endpoint/${epId}/delivery-policy`)).toEqual(
      epPolicy,
    );
    schedule = await getJson(`/api/v1/app/${appId}/endpoint/${epId}/retry-schedule`);
    expect(schedule).toMatchObject({
      preset: "custom",
      attempts: 4,
      source: "endpoint",
      // Ascending, and 410, permanent whatever the set says, named with it.
      permanent: { statuses: [409, 410, 422], source: "endpoint" },
    });
    expect(api.engine.invalidatedEndpoints).toContain(epId);

    await api.call("PUT", `/api/v1/app/${appId}/endpoint/${epId}/delivery-policy`, {});
    expect(await getJson(`/api/v1/app/${appId}/endpoint/${epId}/delivery-policy`)).toEqual({});
    await api.call("PUT", `/api/v1/app/${appId}/delivery-policy`, {});
    expect((await getJson(`/api/v1/app/${appId}`)).deliveryPolicy).toBeNull();
  });

  it("refuses a bad policy on the policy paths, naming the field under body", async () => {
    const res = await api.call("PUT", `/api/v1/app/${appId}/endpoint/${epId}/delivery-policy`, {
      retry: { delays: [60, 30] },
      timeoutMs: 5,
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: (string | number)[] }[] };
    expect(body.detail.map((p) => p.loc.join("."))).toEqual([
      "body.retry.delays.1",
      "body.timeoutMs",
    ]);
  });

  it("accepts deliveryPolicy on application and endpoint bodies, and a Svix PUT keeps it", async () => {
    const res = await api.call("POST", "/api/v1/app", {
      name: "with policy",
      uid: "with-policy",
      deliveryPolicy: { retry: { preset: "three-day" } },
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ deliveryPolicy: { retry: { preset: "three-day" } } });
    await api.svix.application.update("with-policy", { name: "renamed", uid: "with-policy" });
    expect((await getJson("/api/v1/app/with-policy")).deliveryPolicy).toEqual({
      retry: { preset: "three-day" },
    });

    const ep = await api.call("POST", "/api/v1/app/with-policy/endpoint", {
      url: "https://example.com/p",
      deliveryPolicy: { timeoutMs: 5000 },
    });
    expect(await ep.json()).toMatchObject({ deliveryPolicy: { timeoutMs: 5000 } });
  });
});
