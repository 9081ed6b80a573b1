/**
 * A page of a message's destinations reads why hookline gave up on its deliveries (their
 * `delivery.reason`) in one store call, by the page's deliveries: it read the message's every
 * record, 250 at a time in the records' order, until it had found the page's. A message given up
 * at 10,000 endpoints had 40 such reads for each page (and at each refresh of the portal's
 * message page), and a page with one delivery that has no record (a failed replay's, one past the
 * depth cap) read them all whatever the page.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { Endpoint } from "../../src/domain/types.js";
import {
  accept,
  aFailedAttempt,
  anApplication,
  anEndpoint,
  claimAll,
  outcomeFor,
} from "../store/behaviour/fixtures.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

const ENDPOINTS = 600;

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => {
  await h.stop();
});

interface Destination {
  id: string;
  delivery: { state: string; reason: string | null };
}

it("reads the reasons of a page's deliveries in one store call", async () => {
  const { store } = h.hookline;
  const app = await store.createApplication(anApplication({ name: "wide" }));
  const eps: Endpoint[] = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    eps.push(await store.createEndpoint(anEndpoint(app.id, { url: `https://rx.example/${i}` })));
  }
  eps.sort((a, b) => (a.id < b.id ? -1 : 1));
  const index = new Map(eps.map((ep, i) => [ep.id, i]));
  // Due in an hour: the engine leaves them alone. Given up here, the last endpoint's first, so
  // that the records of the first page's deliveries come last among the message's.
  const due = Date.now() + 3_600_000;
  const { message } = await accept(store, app.id, { now: Date.now(), dueAt: due });
  const claimed = await claimAll(store, due);
  expect(claimed).toHaveLength(ENDPOINTS);
  claimed.sort((a, b) => index.get(b.endpointId)! - index.get(a.endpointId)!);
  const outcomes = claimed.map((d, n) => {
    const i = index.get(d.endpointId)!;
    const at = due + n;
    const reason = `all 3 attempts failed; last: HTTP 503 (endpoint ${i})`;
    return outcomeFor(d, {
      at,
      attempt: aFailedAttempt(at),
      next: { kind: "dead", failureClass: "exhausted", reason },
    });
  });
  await store.recordAttempts(outcomes);

  // Every call of the store's about dead letters, whatever its name.
  const methods = store as unknown as Record<string, () => unknown>;
  const reads = Object.getOwnPropertyNames(Object.getPrototypeOf(store))
    .filter((name) => /deadLetter/i.test(name))
    .map((name) => vi.spyOn(methods, name));
  const path = `/api/v1/app/${app.id}/msg/${message.id}/endpoint?limit=250`;
  const page = await h.api<{ data: Destination[] }>("GET", path);
  expect(page.status).toBe(200);
  expect(page.body.data).toHaveLength(250);
  const calls = reads.reduce((n, spy) => n + spy.mock.calls.length, 0);
  vi.restoreAllMocks();
  expect(calls).toBe(1);
  for (const d of page.body.data) {
    expect(d.delivery).toEqual(
      expect.objectContaining({
        state: "dead",
        reason: `all 3 attempts failed; last: HTTP 503 (endpoint ${index.get(d.id)})`,
      }),
    );
  }
});
