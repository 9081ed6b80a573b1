/**
 * A delivery hookline refused to send, its endpoint's address not allowed (a loopback or private
 * address with HOOKLINE_ALLOW_PRIVATE_TARGETS off), is given up at once as permanent. Its message
 * page said "a permanent failure: the receiver answered address not allowed (…)", though no
 * receiver was reached: hookline refused. It now says what failed without a receiver's answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { anEndpoint } from "../support/dlq.js";
import { firstDeliveryStanding, launchBrowser, openPortal } from "../support/browser.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("a message whose endpoint's address hookline refuses", () => {
  let h: TestHookline;
  let rx: Receiver;
  let browser: Browser;
  let appId: string;
  let msgId: string;

  beforeAll(async () => {
    rx = await Receiver.start();
    // The endpoint is made while private targets are allowed, then served with them refused: the
    // loopback receiver is one, refused as hookline connects.
    const first = await startHookline();
    const ep = await anEndpoint(first, rx.url("/hooks"));
    await first.stop(true);
    h = await startHookline({
      dataDir: first.dataDir,
      env: { HOOKLINE_ALLOW_PRIVATE_TARGETS: "0" },
    });
    appId = ep.appId;
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    await h.waitFor((e) => e.type === "delivery" && e.messageId === msgId);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.stop();
    await rx?.close();
  });

  it("says hookline refused the address, not that the receiver answered", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await openPortal(page, h, appId);
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const standing = firstDeliveryStanding(page);
    await standing.getByText("hookline stopped trying").waitFor();
    const text = (await standing.textContent()) ?? "";
    expect(text).toContain(
      "hookline stopped trying: a permanent failure: address not allowed (HOOKLINE_REFUSED_TARGET: " +
        "refused to connect to 127.0.0.1",
    );
    expect(text).toContain("which is not retried");
    expect(text).not.toContain("the receiver answered");
    expect(rx.requests).toHaveLength(0);
  });
});
