/**
 * The endpoints page read each endpoint's last-hour health with a request of its own: 250 requests
 * on every refresh of a full page, each with its token check, for a few numbers per row. It now
 * reads them with one endpoint-health request per page of 250, and the rows on a page added by
 * "More endpoints" get their health too.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

const MANY = 251;

describe("operator console: endpoint health on a long list", () => {
  const ui = useDashboard({ signedIn: true });

  it("asks once per page of endpoints, and every row shows its health", async () => {
    const { h, rx, page } = ui;
    const app = (await h.svix.application.create({ name: "Busy" })).id;
    for (let i = 1; i <= MANY; i++) {
      // Endpoint 1 (the oldest, on the second page) and the newest take their own event type.
      const filterTypes = i === 1 ? ["to.oldest"] : i === MANY ? ["to.newest"] : ["to.nobody"];
      await h.svix.endpoint.create(app, { url: rx.url(`/ep/${i}`), filterTypes });
    }
    for (const eventType of ["to.oldest", "to.newest"]) {
      const msg = await h.svix.message.create(app, { eventType, payload: {} });
      await h.waitFor(deliveryOf(msg.id, "succeeded"));
    }

    const asked = { health: 0, perEndpoint: 0, endpointPages: 0 };
    page.on("request", (req) => {
      if (req.url().includes("/endpoint-health?")) asked.health += 1;
      if (req.url().includes("/endpoint?limit=")) asked.endpointPages += 1;
      if (req.url().includes("/attempt-stats")) asked.perEndpoint += 1;
    });
    await page.goto(`${h.url}/ui/#/app/${app}/endpoints`);
    const list = page.getByRole("table", { name: /Endpoints and their health/ });
    const row = (i: number) =>
      list.getByRole("row").filter({
        has: page.getByRole("link", { name: rx.url(`/ep/${i}`), exact: true }),
      });
    await row(MANY).getByText("100% of 1").waitFor();
    expect(await row(2).innerText()).not.toContain("%");

    await page.getByRole("button", { name: "More endpoints" }).click({ timeout: 15_000 });
    await row(1).getByText("100% of 1").waitFor();
    expect(asked.perEndpoint).toBe(0);
    // Each read of the list reads the health of the same pages beside it (one of the two may be
    // a page ahead when the test stops looking); none per endpoint.
    expect(asked.endpointPages).toBeGreaterThanOrEqual(3);
    expect(Math.abs(asked.health - asked.endpointPages)).toBeLessThanOrEqual(1);
  });
});
