/**
 * A message's delivery that hookline gave up on (a permanent failure, or no retry left) said only
 * "fail", like one that will be retried in a minute: a customer could not tell whether more tries
 * were coming. The message's page now says that hookline stopped trying and why, and the console
 * names its dead-letter record; a delivery still being retried says how many attempts failed and
 * when the next one is.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { ONE_ATTEMPT } from "../support/dlq.js";
import { openPortal, signIn, useDashboard } from "../support/browser.js";

describe("a message's deliveries that failed", () => {
  const ui = useDashboard({
    receiver: (req) =>
      req.path === "/gone-wrong" ? { status: 400, body: "bad" } : { status: 503, body: "down" },
  });
  let appId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    const endpoint = async (path: string, deliveryPolicy?: unknown) => {
      const ep = await h.api<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, {
        url: rx.url(path),
        ...(deliveryPolicy ? { deliveryPolicy } : {}),
      });
      expect(ep.status).toBe(201);
      return ep.body.id;
    };
    const ids = [
      await endpoint("/gone-wrong"),
      await endpoint("/one-try", ONE_ATTEMPT),
      await endpoint("/retried"),
    ];
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    for (const id of ids) {
      await h.waitFor((e) => e.type === "delivery" && e.messageId === msgId && e.endpointId === id);
    }
    await openPortal(page, h, appId);
  });

  const card = (page: Page, path: string) =>
    page.locator("article.timeline").filter({ hasText: ui.rx.url(path) });

  it("say in the portal that hookline stopped trying, and why", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const permanent = card(page, "/gone-wrong").locator("p").first();
    await permanent.getByText("hookline stopped trying").waitFor();
    expect(await permanent.textContent()).toMatch(
      /^fail · hookline stopped trying: a permanent failure: the receiver answered HTTP 400, which is not retried\. Nothing more is sent unless it is resent\. Resend to this endpoint$/,
    );
    expect(await card(page, "/one-try").locator("p").first().textContent()).toContain(
      // In hookline's words, as its dead-letter record says.
      "fail · hookline stopped trying: the one attempt failed; last: HTTP 503.",
    );
    const retried = await card(page, "/retried").locator("p").first().textContent();
    expect(retried).toMatch(/^pending · 1\u00a0attempt failed, retrying: next attempt in\s\d+\ss/);
    expect(retried).not.toContain("stopped");
  });

  it("name the dead-letter record and its reason in the console", async () => {
    const { h, browser } = ui;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await signIn(page, h.url, h.token);
      await page.goto(`${h.url}/ui/#/app/${appId}/message/${msgId}`);
      const exhausted = card(page, "/one-try").locator("p").first();
      await exhausted.getByRole("link", { name: /^dlq_/ }).waitFor();
      expect(await exhausted.textContent()).toMatch(
        /^fail · hookline stopped trying: .*HTTP 503\. It is in the dead-letter queue as dlq_\w+ \(open\)\. Nothing more is sent unless it is resent\./,
      );
      await card(page, "/gone-wrong").getByText("HTTP 400 is permanent").waitFor();
    } finally {
      await page.close();
    }
  });
});
