/**
 * The DLQ summary (the dead-letter page reads it every 2 s) reads its groups' endpoints in one
 * go and takes their stored circuits from the summary itself. It read each group's endpoint and
 * its circuit with a store call each: two per endpoint with open records, every refresh (on
 * PostgreSQL, as many round trips). Each row still says what it said.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { ONE_ATTEMPT, PATIENT_BREAKER, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

const ENDPOINTS = 12;

let h: TestHookline;
let rx: Receiver;
beforeAll(async () => {
  h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
  rx = await Receiver.start(() => ({ status: 404 }));
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

it("reads the groups' endpoints in one go and each circuit from the summary", async () => {
  const app = await h.api<{ id: string }>("POST", "/api/v1/app", { name: "Acme" });
  const urls = new Map<string, string>();
  for (let i = 0; i < ENDPOINTS; i++) {
    const url = rx.url(`/ep/${i}`);
    const ep = await h.api<{ id: string }>("POST", `/api/v1/app/${app.body.id}/endpoint`, {
      url,
      deliveryPolicy: ONE_ATTEMPT,
    });
    urls.set(ep.body.id, url);
  }
  const msg = await post(h, app.body.id, { n: 1 });
  for (const endpointId of urls.keys()) await h.waitFor(deliveryOf(msg, "dead", endpointId));
  const { store } = h.hookline;
  const one = { endpoint: vi.spyOn(store, "getEndpoint"), circuit: vi.spyOn(store, "getCircuit") };
  const batch = vi.spyOn(store, "getEndpoints");
  const summary = await h.api<{ data: { endpointId: string; url: string; circuit: unknown }[] }>(
    "GET",
    `/api/v1/dlq/summary?app_id=${app.body.id}`,
  );
  expect(summary.status).toBe(200);
  expect(one.endpoint).not.toHaveBeenCalled();
  expect(one.circuit).not.toHaveBeenCalled();
  expect(batch).toHaveBeenCalledTimes(1);
  vi.restoreAllMocks();

  expect(summary.body.data).toHaveLength(ENDPOINTS);
  for (const row of summary.body.data) {
    expect(row.url).toBe(urls.get(row.endpointId));
    const own = await h.api<{ circuit: { state: string; since: string; nextProbeAt: string } }>(
      "GET",
      `/api/v1/app/${app.body.id}/endpoint/${row.endpointId}`,
    );
    const { state, since, nextProbeAt } = own.body.circuit;
    expect(row.circuit).toEqual({ state, since, nextProbeAt });
  }
});
