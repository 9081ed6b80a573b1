/**
 * A message fanned out to many endpoints, its deliveries waiting for a retry: its page says
 * of each waiting delivery whether the endpoint's circuit holds it, and of each disabled endpoint
 * why. It read each such endpoint with a request of its own at every refresh (up to 250 requests every
 * 2 s, for as long as the page stayed open); the message's destinations now say it themselves.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { anApplication, anEndpoint } from "../store/behaviour/fixtures.js";

const ENDPOINTS = 60;

describe("customer portal: a message to many endpoints", () => {
  const ui = useDashboard({
    // One failure opens a circuit whose probe is far off: the deliveries wait, held by it.
    hookline: { overrides: { breaker: { consecutiveFailures: 1, probeDelayMs: 30 * 60_000 } } },
    receiver: () => ({ status: 500, body: "down" }),
  });
  let appId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    const { store } = h.hookline;
    appId = (await store.createApplication(anApplication({ name: "Acme" }))).id;
    for (let i = 0; i < ENDPOINTS; i++) {
      await store.createEndpoint(anEndpoint(appId, { url: rx.url(`/ep/${i}`) }));
    }
    let pending = 0;
    const waiting = new Promise<void>((resolve) => {
      const off = h.hookline.engine.events.on((e) => {
        if (
          e.type === "delivery" &&
          e.state === "pending" &&
          e.attempt &&
          ++pending === ENDPOINTS
        ) {
          off();
          resolve();
        }
      });
    });
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    await waiting;
    await openPortal(page, h, appId);
  }, 60_000);

  it("says what holds each delivery back without reading each endpoint", async () => {
    const { h, page } = ui;
    const reads = { endpoint: 0, destinations: 0 };
    page.on("request", (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith(`/api/v1/app/${appId}/endpoint/`)) reads.endpoint++;
      if (path === `/api/v1/app/${appId}/msg/${msgId}/endpoint`) reads.destinations++;
    });
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const deliveries = page.getByRole("region", { name: "Deliveries" });
    await deliveries
      .getByText(/waits for the circuit's probe/)
      .first()
      .waitFor();
    // Two refreshes more, about 4 s.
    const first = reads.destinations;
    while (reads.destinations < first + 2) await page.waitForTimeout(200);
    expect(await deliveries.getByText(/waits for the circuit's probe/).count()).toBe(ENDPOINTS);
    expect(reads.endpoint).toBe(0);
  }, 30_000);
});
