/**
 * A message's destinations (the message page reads up to 250 at each 2 s refresh) say each
 * endpoint's circuit, never its stats: they read the page's stored circuits alone. They read
 * every endpoint's stats row with them, for an answer that has none.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { Endpoint } from "../../src/domain/types.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => {
  await h.stop();
});

interface Destination {
  id: string;
  circuit: { state: string };
}

it("reads the destinations' circuits without their endpoints' stats", async () => {
  const { store } = h.hookline;
  const app = await store.createApplication(anApplication({ name: "wide" }));
  const eps: Endpoint[] = [];
  for (let i = 0; i < 3; i++) {
    eps.push(await store.createEndpoint(anEndpoint(app.id, { url: `https://rx.example/${i}` })));
  }
  // Due in an hour: the engine leaves them alone meanwhile, and shows the stored circuit.
  const { message } = await accept(store, app.id, { dueAt: Date.now() + 3_600_000 });
  const now = Date.now();
  await store.saveCircuit(
    eps[1]!.id,
    { state: "open", since: now, reason: "down", nextProbeAt: now + 3_600_000, reopenCount: 0 },
    null,
  );
  const stats = {
    many: vi.spyOn(store, "getEndpointsHealth"),
    one: vi.spyOn(store, "getEndpointStats"),
  };
  const page = await h.api<{ data: Destination[] }>(
    "GET",
    `/api/v1/app/${app.id}/msg/${message.id}/endpoint?limit=250`,
  );
  expect(page.status).toBe(200);
  expect(stats.many).not.toHaveBeenCalled();
  expect(stats.one).not.toHaveBeenCalled();
  vi.restoreAllMocks();

  const shown = Object.fromEntries(page.body.data.map((d) => [d.id, d.circuit.state]));
  expect(shown).toEqual({ [eps[0]!.id]: "closed", [eps[1]!.id]: "open", [eps[2]!.id]: "closed" });
  const own = await h.api<Destination>("GET", `/api/v1/app/${app.id}/endpoint/${eps[1]!.id}`);
  expect(page.body.data.find((d) => d.id === eps[1]!.id)!.circuit).toEqual(own.body.circuit);
});
