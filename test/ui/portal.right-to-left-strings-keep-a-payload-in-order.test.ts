/**
 * A payload holding a Hebrew (or Arabic) string reads in the order it was sent. The right-to-left
 * string drew the quotes, commas and numbers after it into its own direction: the payload as sent,
 * `["שלום",1,2]`, read `["1,2,"שלום]`, which is not what the receiver got.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard, whereDrawn } from "../support/browser.js";

describe("customer portal: right-to-left strings in a payload", () => {
  const ui = useDashboard();
  let appId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    await h.svix.endpoint.create(appId, { url: rx.url("/hook") });
    const payload = { items: ["שלום", 1, 2], city: "תל אביב" };
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload })).id;
    await openPortal(page, h, appId);
  });

  it("draws the numbers after the string, and keeps the text as sent", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    await page.getByText("As sent: the exact bytes each signature covers").click();
    const sent = page.getByLabel("Payload as sent");
    expect(await sent.textContent()).toBe('{"items":["שלום",1,2],"city":"תל אביב"}');
    // Where the word and what follows it are drawn, left to right.
    const word = await whereDrawn(sent, "שלום");
    const numbers = await whereDrawn(sent, ",1,2]");
    expect(numbers.left).toBeGreaterThanOrEqual(word.right - 1);
  });
});
