/**
 * An operator disables an endpoint while a live update's read of it is still waiting for its
 * answer. That answer, taken before the change, said "enabled"; coming in after the action's own
 * refresh, it was not drawn, but the page's buttons and edit form had followed it already: the
 * state said "Disabled" under a "Disable" button until the next update. They follow only what is
 * drawn now.
 */
import type { Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";

describe("operator console: an endpoint's read answered late", () => {
  const ui = useDashboard({ signedIn: true, receiver: () => ({ status: 200 }) });

  it("leaves the button as the action made it", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/hooks") });
    const path = `/api/v1/app/${app.id}/endpoint/${ep.id}`;
    await page.goto(`${h.url}/ui/#/app/${app.id}/endpoint/${ep.id}`);
    const facts = page.getByRole("region", { name: "Endpoint state" });
    await facts.getByText("Enabled", { exact: true }).waitFor();
    const disable = page.getByRole("button", { name: "Disable", exact: true });
    await disable.waitFor();

    // The next live update's read of the endpoint is answered at once (enabled) and that answer
    // held; the read after the held one is caught, so the page can be read once the held answer
    // has been dealt with and before anything redraws it.
    let phase: "hold" | "pass" | "catch" | "done" = "hold";
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    let heldArrived = () => {};
    const held = new Promise<void>((r) => (heldArrived = r));
    let nextArrived = () => {};
    const next = new Promise<void>((r) => (nextArrived = r));
    const caught: Route[] = [];
    await page.route(
      (url) => url.pathname === path,
      async (route) => {
        if (route.request().method() !== "GET" || phase === "pass") return route.continue();
        if (phase === "hold") {
          phase = "pass";
          const response = await route.fetch();
          heldArrived();
          await released;
          return route.fulfill({ response });
        }
        if (phase === "catch") {
          phase = "done";
          caught.push(route);
          nextArrived();
          return;
        }
        return route.continue();
      },
    );
    await held;

    await disable.click();
    await facts.getByText(/^Disabled/).waitFor({ timeout: 15_000 });
    const enable = page.getByRole("button", { name: "Enable", exact: true });
    await enable.waitFor();
    phase = "catch";
    release();
    // The update after the held one starts only once the held one has been dealt with.
    await next;
    try {
      expect(await enable.count()).toBe(1);
      expect(await disable.count()).toBe(0);
      expect(await facts.getByText(/^Disabled/).count()).toBe(1);
    } finally {
      await page.unroute(() => true);
      for (const route of caught) await route.continue();
    }
  });
});
