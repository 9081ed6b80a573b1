/**
 * A page of endpoints (the dashboard's endpoints page reads 250 at each 2 s refresh) reads their
 * stored circuits and stats in one go for the page. It read both for each endpoint, 500 store
 * calls for a page of 250 (as many round trips to PostgreSQL), and each row still says what the
 * endpoint's own answer says.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

const ENDPOINTS = 260;

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => {
  await h.stop();
});

it("reads a page's circuits and stats in one go, each as the endpoint's own answer has them", async () => {
  const { store } = h.hookline;
  const app = await store.createApplication(anApplication({ name: "many" }));
  for (let i = 0; i < ENDPOINTS; i++) {
    await store.createEndpoint(anEndpoint(app.id, { url: `https://receiver.example/${i}` }));
  }
  const one = {
    stats: vi.spyOn(store, "getEndpointStats"),
    circuit: vi.spyOn(store, "getCircuit"),
  };
  const batch = vi.spyOn(store, "getEndpointsHealth");
  const page = await h.api<{ data: { id: string }[]; done: boolean }>(
    "GET",
    `/api/v1/app/${app.id}/endpoint?limit=250`,
  );
  expect(page.status).toBe(200);
  expect(page.body.data).toHaveLength(250);
  expect(one.stats).not.toHaveBeenCalled();
  expect(one.circuit).not.toHaveBeenCalled();
  expect(batch).toHaveBeenCalledTimes(1);
  vi.restoreAllMocks();

  for (const listed of page.body.data.slice(0, 3)) {
    const own = await h.api("GET", `/api/v1/app/${app.id}/endpoint/${listed.id}`);
    expect(listed).toEqual(own.body);
  }
});
