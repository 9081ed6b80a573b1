/**
 * An endpoint's page says since when its circuit is in its state, "since <time> (5 min ago)". The
 * relative time carries its exact time for screen readers (format.ts), which the text here says
 * already: read out, it said the same time twice, "since 9:06 AM (5 min ago (9:06 AM))".
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";

describe("operator console: an endpoint's circuit says since when once", () => {
  const ui = useDashboard({ signedIn: true });

  it("reads the circuit's time once, beside its relative time", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/hook") });
    await page.goto(`${h.url}/ui/#/app/${app.id}/endpoint/${ep.id}`);
    const state = page.getByRole("region", { name: "Endpoint state" });
    await state.getByText(/Circuit Closed/).waitFor();
    // What a screen reader reads of the line: every text in it, shown or not.
    const read = await page.evaluate<string>(`(() => {
      const dt = [...document.querySelectorAll("dt")].find((d) => d.textContent === "Circuit");
      return dt.nextElementSibling.textContent;
    })()`);
    const since = /since (.+?) \(/.exec(read)?.[1];
    expect(since, read).toBeTruthy();
    expect(read.split(since!).length - 1, read).toBe(1);
  });
});
