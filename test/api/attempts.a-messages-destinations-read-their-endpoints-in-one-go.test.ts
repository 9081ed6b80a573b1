/**
 * A page of a message's destinations (the message page reads up to 250 at each 2 s refresh)
 * reads its endpoints in one go. It read each endpoint with a store call of its own, 250 for a
 * message fanned out that wide (as many round trips to PostgreSQL), at every refresh; and an
 * endpoint deleted since is still left out.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

const ENDPOINTS = 260;

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => {
  await h.stop();
});

interface Destination {
  id: string;
  url: string;
  circuit: unknown;
  disabledReason: string | null;
}

it("reads a page's endpoints in one go, each as the endpoint's own answer has it", async () => {
  const { store } = h.hookline;
  const app = await store.createApplication(anApplication({ name: "wide" }));
  for (let i = 0; i < ENDPOINTS; i++) {
    await store.createEndpoint(anEndpoint(app.id, { url: `https://receiver.example/${i}` }));
  }
  // Due in an hour: the engine leaves them alone meanwhile.
  const { message } = await accept(store, app.id, { dueAt: Date.now() + 3_600_000 });
  const one = vi.spyOn(store, "getEndpoint");
  const batch = vi.spyOn(store, "getEndpoints");
  const path = `/api/v1/app/${app.id}/msg/${message.id}/endpoint`;
  const page = await h.api<{ data: Destination[]; done: boolean }>("GET", `${path}?limit=250`);
  expect(page.status).toBe(200);
  expect(page.body.data).toHaveLength(250);
  expect(page.body.done).toBe(false);
  expect(one).not.toHaveBeenCalled();
  expect(batch).toHaveBeenCalledTimes(1);
  vi.restoreAllMocks();

  for (const listed of page.body.data.slice(0, 3)) {
    const own = await h.api<Destination>("GET", `/api/v1/app/${app.id}/endpoint/${listed.id}`);
    expect(listed).toMatchObject({
      url: own.body.url,
      circuit: own.body.circuit,
      disabledReason: own.body.disabledReason,
    });
  }

  const [gone] = page.body.data;
  await h.api("DELETE", `/api/v1/app/${app.id}/endpoint/${gone!.id}`);
  const after = await h.api<{ data: Destination[] }>("GET", `${path}?limit=250`);
  expect(after.body.data.map((d) => d.id)).not.toContain(gone!.id);
});
