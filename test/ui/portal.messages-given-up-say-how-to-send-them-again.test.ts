/**
 * A customer whose endpoint hookline gave up on read `Dead-lettered 2` on its page, beneath a
 * hint about records "open, resolved or abandoned" and a "dead-letter depth cap": words of the
 * operators' queue, which the portal does not show, and nothing about how to get those messages
 * once the endpoint is fixed. The portal now says that hookline stopped trying them and that
 * each is sent again from its message (the failed attempts below lead to them), and its hint
 * speaks of messages given up on, not of records.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { ONE_ATTEMPT } from "../support/dlq.js";
import { openPortal, useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

const counts = (page: Page) => page.getByRole("region", { name: "Messages of the last 24 hours" });

describe("customer portal: messages given up on say how to send them again", () => {
  const ui = useDashboard({ receiver: () => ({ status: 500 }) });
  let appId: string;
  let epId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (
      await h.api<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, {
        url: rx.url("/hook"),
        deliveryPolicy: ONE_ATTEMPT,
      })
    ).body.id;
    for (const n of [1, 2]) {
      const msg = await h.svix.message.create(appId, { eventType: "order.paid", payload: { n } });
      await h.waitFor(deliveryOf(msg.id, "dead"));
    }
    await openPortal(page, h, appId);
  });

  it("says beside the count that each is resent from its message", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const list = counts(page).getByTestId("message-counts");
    await list.waitFor();
    const terms = await list.locator("dt").allInnerTexts();
    const given = (await list.locator("dd").allInnerTexts())[terms.indexOf("Dead-lettered")];
    expect(given).toBe(
      "2 · hookline stopped trying these: once the endpoint is fixed (and enabled, if it is " +
        "disabled), send each again with Resend to this endpoint on its message (the failed " +
        "attempts below lead to those it tried)",
    );
  });

  it("explains the count without the dead-letter queue's words", async () => {
    const { page } = ui;
    const hint = await counts(page).locator("p.hint").innerText();
    expect(hint).toContain("Dead-lettered counts the window's messages hookline gave up on here");
    expect(hint).not.toMatch(/record|depth cap|abandoned/);
  });
});
