/**
 * The latency chart's axis labels are drawn whole whatever the latency. They were drawn
 * right-aligned into a pad made for three digits: "3018 ms" lost its first digit off the chart's
 * left edge and read "018 ms", and a 15 s timeout read "002 ms", as if the endpoint were fast.
 * Latencies from a second up now read in seconds ("2.5 s"), in a pad with room for them.
 */
import { describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";
import { signIn, useDashboard } from "../support/browser.js";

describe("operator console: the latency chart of a slow endpoint", () => {
  const ui = useDashboard({ receiver: () => ({ status: 200, body: "ok", delayMs: 2_500 }) });

  it("labels its axis in seconds, every label inside the chart", async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/slow"));
    await h.waitFor(deliveryOf(await post(h, ep.appId, { n: 1 }), "succeeded"), 15_000);

    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#/app/${ep.appId}/endpoint/${ep.endpointId}`);
    const chart = page.getByRole("img", {
      // 2.5 s and what the attempt took besides: over 3 s on a machine busy with other tests.
      name: /^Mean latency per minute: latest \d+\.\d\ss at /,
    });
    await chart.waitFor();
    // The y axis labels (the texts drawn right-aligned), with where they start in the picture.
    // Run in the page as text: the tests are compiled without the DOM's types.
    const labels = await page.evaluate<{ text: string; left: number }[]>(`
      [...document.querySelector('svg[aria-label^="Mean latency"]').querySelectorAll("text")]
        .filter((t) => t.getAttribute("text-anchor") === "end" && Number(t.getAttribute("y")) < 150)
        .map((t) => ({ text: t.textContent, left: t.getBBox().x }))`);
    expect(labels.map((l) => l.text)).toEqual([
      "0\u00a0ms",
      expect.stringMatching(/^\d+\.\d\u00a0s$/),
      expect.stringMatching(/^\d+\.\d\u00a0s$/),
    ]);
    for (const l of labels) expect(l.left).toBeGreaterThanOrEqual(0);
    // A 2.5 s answer, then the page: on a machine loaded by other tests the whole took past the
    // default 30 s once.
  }, 60_000);
});
