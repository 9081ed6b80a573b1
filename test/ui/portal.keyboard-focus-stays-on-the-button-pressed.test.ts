/**
 * A keyboard user who presses a button (Send test event, Reveal secret, Resend, More attempts,
 * Portal link, a form's submit) stays on it. Every such button was disabled while its request ran,
 * and the browser takes focus off a disabled button: focus fell to the top of the page, so the
 * next Tab started again from the skip link. The buttons are now only marked busy meanwhile, and
 * one that the page redraws afterwards is focused again where it is drawn.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, signIn, useDashboard } from "../support/browser.js";

describe("keyboard focus on a pressed button", () => {
  const ui = useDashboard();
  let appId: string;
  let epId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    // Three pages of attempts (20 a page, 42 with the test event), "More attempts" to reach them.
    const ids = [];
    for (let i = 0; i < 41; i++) {
      ids.push(
        (await h.svix.message.create(appId, { eventType: "order.paid", payload: { i } })).id,
      );
    }
    for (const id of ids) await h.waitFor((e) => e.type === "delivery" && e.messageId === id);
    msgId = ids[0]!;
    await openPortal(page, h, appId);
  });

  /** The focused element's tag and text (or its data-key when it has one). */
  const focused = () =>
    ui.page.evaluate<string>(
      "`${document.activeElement.tagName} ${document.activeElement.getAttribute('data-key') ?? document.activeElement.textContent}`",
    );

  it("keeps focus on Send test event and Reveal secret", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    await page.getByLabel("Event type", { exact: true }).focus();
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("BUTTON Send test event");
    await page.keyboard.press("Enter");
    await page.getByText(/^Test event msg_\w+ queued$/).waitFor();
    expect(await focused()).toBe("BUTTON Send test event");

    await page.keyboard.press("Tab");
    expect(await focused()).toBe("BUTTON Reveal secret");
    await page.keyboard.press("Enter");
    await page.getByText(/^whsec_/).waitFor();
    expect(await focused()).toBe("BUTTON Reveal secret");
  });

  it("keeps focus on More attempts as the next page comes in", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const rows = page.getByRole("table", { name: "Recent attempts" }).locator("tbody tr");
    await rows.nth(19).waitFor();
    await page.getByRole("button", { name: "More attempts" }).focus();
    await page.keyboard.press("Enter");
    await rows.nth(39).waitFor();
    expect(await focused()).toBe("BUTTON more-attempts");
    // The next Tab goes on from there, not from the top of the page.
    await page.keyboard.press("Shift+Tab");
    expect(await focused()).toMatch(/^(A|SUMMARY) /);
    // The last page: the button goes, and focus goes to the list it extended.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await rows.nth(41).waitFor();
    expect(await page.getByRole("button", { name: "More attempts" }).count()).toBe(0);
    expect(await page.evaluate<string | null>("document.activeElement.ariaLabel")).toBe(
      "Recent attempts",
    );
  });

  it("keeps focus on Resend once the message's deliveries are redrawn", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const attempts = page.locator("article.timeline li");
    await attempts.first().waitFor();
    await page.getByRole("button", { name: "Resend to this endpoint" }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("Resend queued").waitFor();
    await attempts.nth(1).waitFor();
    expect(await focused()).toBe(`BUTTON resend-${epId}`);
  });

  it("keeps focus on the console's Portal link and Create application", async () => {
    const { h, browser } = ui;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await signIn(page, h.url, h.token);
      const focusedHere = () =>
        page.evaluate<string>(
          "`${document.activeElement.tagName} ${document.activeElement.getAttribute('data-key') ?? document.activeElement.textContent}`",
        );
      await page.locator(`[data-key="portal-${appId}"]`).focus();
      await page.keyboard.press("Enter");
      await page.getByText("Portal link for Acme").waitFor();
      expect(await focusedHere()).toBe(`BUTTON portal-${appId}`);

      await page.getByLabel("Name").fill("Globex");
      await page.keyboard.press("Tab");
      expect(await focusedHere()).toBe("BUTTON Create application");
      await page.keyboard.press("Enter");
      await page.getByText("Application Globex created").waitFor();
      expect(await focusedHere()).toBe("BUTTON Create application");
    } finally {
      await page.close();
    }
  });
});
