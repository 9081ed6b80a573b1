/**
 * The endpoint page's counts of the last 24 hours are of hookline's last 24 hours, whatever the
 * clock of the browser showing them. The page asked for the messages created since a day before
 * the browser's own time: a laptop a day ahead counted none of the endpoint's messages (every
 * count 0), one behind counted more than the heading said.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";

const DAY_MS = 24 * 60 * 60 * 1000;

describe("endpoint page: the counts' window is hookline's", () => {
  const ui = useDashboard({ receiver: () => ({ status: 200 }) });
  let path: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/counted"));
    for (const n of [1, 2]) {
      await h.waitFor(deliveryOf(await post(h, ep.appId, { n }), "succeeded"));
    }
    path = `/app/${ep.appId}/endpoint/${ep.endpointId}`;
    // The browser's clock a day and an hour ahead of hookline's; its timers run as ever.
    await page.addInitScript(
      (ahead) => {
        const real = Date.now.bind(Date);
        Date.now = () => real() + ahead;
      },
      DAY_MS + 60 * 60 * 1000,
    );
    await signIn(page, h.url, h.token);
  });

  it("counts the messages hookline took in its last day", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#${path}`);
    const list = page
      .getByRole("region", { name: "Messages of the last 24 hours" })
      .getByTestId("message-counts");
    await list.waitFor();
    const terms = await list.locator("dt").allInnerTexts();
    expect(await list.locator("dd").nth(terms.indexOf("Delivered")).innerText()).toBe("2");
  });
});
