/**
 * A message's page lists the application's endpoints it did not go to. It read them, up to 250
 * whole endpoints, at every refresh (each 2 s) for as long as the page was open; they are read
 * again every 30 s instead, while the message's own deliveries are still read at each refresh.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: a message's page left open", () => {
  const ui = useDashboard();
  let appId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    await h.svix.endpoint.create(appId, { url: rx.url("/hook"), filterTypes: ["order.created"] });
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    await openPortal(page, h, appId);
  });

  it("reads the application's endpoints once over several refreshes", async () => {
    const { h, page } = ui;
    const reads = { endpoints: 0, deliveries: 0 };
    page.on("request", (r) => {
      const path = new URL(r.url()).pathname;
      if (path === `/api/v1/app/${appId}/endpoint`) reads.endpoints++;
      if (path === `/api/v1/app/${appId}/msg/${msgId}/endpoint`) reads.deliveries++;
    });
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    await page
      .getByRole("region", { name: "Deliveries" })
      .getByRole("article", { name: "Endpoints it did not go to" })
      .waitFor();
    // Three refreshes more of the deliveries, about 6 s: well inside the 30 s.
    const first = reads.deliveries;
    while (reads.deliveries < first + 3) await page.waitForTimeout(200);
    expect(reads.endpoints).toBe(1);
  }, 30_000);
});
