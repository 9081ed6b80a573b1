/**
 * A person shows an endpoint's failed attempts while a live update is still waiting for its
 * answer (a slow network, a loaded hookline). That update read every attempt; its answer came in
 * after the failed ones were drawn and was drawn over them, so the page showed every attempt with
 * "Failed attempts" chosen until the next update. An answer older than the one drawn is dropped.
 */
import type { Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";
import { anEndpointPageWithFourAttempts, everyOtherFails } from "../support/console.js";

describe("operator console: an update answered late", () => {
  const ui = useDashboard({ signedIn: true, receiver: everyOtherFails() });

  it("does not draw every attempt over the failed ones asked for since", async () => {
    const { page } = ui;
    const rows = await anEndpointPageWithFourAttempts(ui);

    // The next live update's read of every attempt is held; the one after it is caught, so the
    // list can be read once the held answer has been dealt with and before anything redraws it.
    let phase: "hold" | "catch" | "done" = "hold";
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    let heldArrived = () => {};
    const held = new Promise<void>((r) => (heldArrived = r));
    let nextArrived = () => {};
    const next = new Promise<void>((r) => (nextArrived = r));
    const caught: Route[] = [];
    await page.route(
      (url) => url.pathname.includes("/attempt/endpoint/"),
      async (route) => {
        const failedOnly = route.request().url().includes("status=2");
        if (phase === "hold" && !failedOnly) {
          heldArrived();
          await released;
        } else if (phase === "catch") {
          phase = "done";
          caught.push(route);
          nextArrived();
          return;
        }
        await route.continue();
      },
    );
    await held;

    await page.getByLabel("Show").selectOption({ label: "Failed attempts" });
    await rows.nth(2).waitFor({ state: "detached", timeout: 15_000 });
    phase = "catch";
    release();
    // The update after the held one starts only once the held one has been drawn or dropped.
    await next;
    try {
      expect(await rows.allInnerTexts()).toEqual([
        expect.stringContaining("500"),
        expect.stringContaining("500"),
      ]);
    } finally {
      await page.unroute(() => true);
      for (const route of caught) await route.continue();
    }
  });
});
