/**
 * A message given up on at many endpoints: in the console, its page links each endpoint's
 * delivery to its dead-letter record. It looked for each record with a request of its own at every
 * refresh (the endpoint's records of that event type since the message, 250 of them, so one behind
 * 250 others was missed); the message's records are now read at once, by the message's id.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { ONE_ATTEMPT, PATIENT_BREAKER } from "../support/dlq.js";
import { anEndpoint } from "../store/behaviour/fixtures.js";

const ENDPOINTS = 12;

describe("operator console: a message given up on at many endpoints", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status: 400, body: "bad" }),
  });
  let appId: string;
  let msgId: string;
  const recordOf = new Map<string, string>();

  beforeAll(async () => {
    const { h, rx, page } = ui;
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", {
      name: "Acme",
      deliveryPolicy: ONE_ATTEMPT,
    });
    appId = app.body.id;
    for (let i = 0; i < ENDPOINTS; i++) {
      await h.hookline.store.createEndpoint(anEndpoint(appId, { url: rx.url(`/ep/${i}`) }));
    }
    // Another message's records, of the same endpoints and event type, are not this one's.
    const other = await h.svix.message.create(appId, { eventType: "order.paid", payload: {} });
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    let dead = 0;
    await h.waitFor(
      (e) => e.type === "delivery" && e.state === "dead" && ++dead === 2 * ENDPOINTS,
      20_000,
    );
    const records = await h.api<{ data: { id: string; endpointId: string; messageId: string }[] }>(
      "GET",
      `/api/v1/dlq?app_id=${appId}&limit=250`,
    );
    for (const r of records.body.data) if (r.messageId === msgId) recordOf.set(r.endpointId, r.id);
    expect(recordOf.size).toBe(ENDPOINTS);
    expect(records.body.data.some((r) => r.messageId === other.id)).toBe(true);
    await signIn(page, h.url, h.token);
  }, 30_000);

  it("links each delivery to its own record, read in one request per refresh", async () => {
    const { h, page } = ui;
    const reads = { dlq: 0, destinations: 0 };
    page.on("request", (r) => {
      const path = new URL(r.url()).pathname;
      if (path === "/api/v1/dlq") reads.dlq++;
      if (path === `/api/v1/app/${appId}/msg/${msgId}/endpoint`) reads.destinations++;
    });
    await page.goto(`${h.url}/ui/#/app/${appId}/message/${msgId}`);
    const deliveries = page.getByRole("region", { name: "Deliveries" });
    await deliveries
      .getByText(/in the dead-letter queue as/)
      .first()
      .waitFor();
    // Two refreshes more, about 4 s. The records are read once the destinations are answered
    // (those of twelve endpoints, which a loaded machine can take a while over): wait for both
    // counts to meet, which a read per endpoint (twelve a refresh) never lets them do.
    await expect
      .poll(() => reads.destinations >= 3 && reads.dlq === reads.destinations, { timeout: 15_000 })
      .toBe(true);
    const linked = await deliveries
      .getByRole("link", { name: /^dlq_/ })
      .evaluateAll((links) => links.map((a) => a.textContent));
    expect(linked.sort()).toEqual([...recordOf.values()].sort());
  }, 30_000);
});
