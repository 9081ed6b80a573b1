/**
 * An endpoint's charts are pictures; a screen reader used to say only their titles. Each now
 * carries its numbers in words: the latest point, the lowest and the highest, with their times.
 */
import { describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";
import { signIn, useDashboard } from "../support/browser.js";

describe("operator console: an endpoint's charts", () => {
  const ui = useDashboard({ receiver: () => ({ status: 200, body: "ok" }) });

  it("are described in words", async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/hooks"));
    await h.waitFor(deliveryOf(await post(h, ep.appId, { n: 1 }), "succeeded"));

    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#/app/${ep.appId}/endpoint/${ep.endpointId}`);
    const rate = page.getByRole("img", { name: /^Success rate per minute: latest 100% at / });
    await rate.waitFor();
    expect(await rate.getAttribute("aria-label")).toMatch(
      /lowest 100% at .+; highest 100% at .+ \(1\u00a0point\)$/,
    );
    await page.getByRole("img", { name: /^Mean latency per minute: latest \d+\sms at / }).waitFor();
  });
});
