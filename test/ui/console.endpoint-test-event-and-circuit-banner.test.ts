/**
 * In the operator console: sign in, create an application and an endpoint with the forms, send a
 * test event and see it delivered; then break the receiver and see the circuit banner appear.
 * Screenshots of the pages are saved as test artifacts.
 */
import { describe, expect, it } from "vitest";
import { screenshot, signIn, useDashboard } from "../support/browser.js";

describe("operator console: endpoints", () => {
  const ui = useDashboard({
    // Two failures in a row open the circuit, so the banner shows after two test events.
    hookline: { overrides: { breaker: { consecutiveFailures: 2, probeDelayMs: 10 * 60_000 } } },
    receiver: () => ({ status: 200, body: "thanks" }),
  });

  it("creates an endpoint, sends a test event and shows it delivered", async () => {
    const { h, rx, page } = ui;
    await signIn(page, h.url, h.token);
    await page.getByLabel("Name").fill("Acme Corp");
    await page.getByRole("button", { name: "Create application" }).click();
    await page.getByRole("link", { name: "Acme Corp" }).click();
    await page.getByRole("heading", { name: "Endpoints of Acme Corp" }).waitFor();

    await page.getByLabel("URL").fill(rx.url("/hooks"));
    await page.getByLabel("Description").fill("Order events");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByRole("link", { name: rx.url("/hooks") }).click();
    await page.getByRole("heading", { name: rx.url("/hooks") }).waitFor();

    await page.getByRole("button", { name: "Send test event" }).click();
    const attempts = page.getByRole("table", { name: "Recent attempts" });
    await attempts.getByText("success").first().waitFor();
    await attempts.getByText("thanks").first().waitFor();
    expect(rx.on("/hooks")).toHaveLength(1);
    await screenshot(page, "endpoint-detail-delivered");
  });

  it("shows the circuit banner once the receiver keeps failing", async () => {
    const { rx, page } = ui;
    rx.behave(() => ({ status: 500, body: "database down" }));
    const send = page.getByRole("button", { name: "Send test event" });
    await send.click();
    await page
      .getByRole("table", { name: "Recent attempts" })
      .getByRole("cell", { name: "500", exact: true })
      .waitFor();
    await send.click();
    const banner = page.getByTestId("circuit-banner");
    await banner.waitFor();
    expect(await banner.textContent()).toContain("circuit open");
    expect(await banner.textContent()).toContain("Next probe");
    await screenshot(page, "endpoint-detail-circuit-open");

    await page.getByRole("link", { name: /Endpoints of Acme Corp/ }).click();
    await page
      .getByRole("table", { name: /Endpoints and their health/ })
      .getByText("Circuit Open")
      .waitFor();
    await screenshot(page, "endpoints-list");
  });

  it("shows the message log, a message's timeline, and the operator pages", async () => {
    const { page } = ui;
    await page.getByRole("link", { name: "Messages of this application" }).click();
    const log = page.getByRole("table", { name: "Newest messages first" });
    await log.getByText("hookline.test").first().waitFor();
    await screenshot(page, "messages");
    await log.getByRole("link").first().click();
    await page.getByRole("heading", { name: "Deliveries" }).waitFor();
    await page.getByRole("button", { name: "Resend to this endpoint" }).waitFor();
    await screenshot(page, "message-detail");
    for (const [nav, heading] of [
      ["Applications", "Applications"],
      ["Alerts", "Alerts"],
      ["System", "System"],
    ] as const) {
      await page.getByRole("navigation").getByRole("link", { name: nav }).click();
      await page.getByRole("heading", { name: heading, exact: true }).waitFor();
      await page.locator("section[data-loaded]").first().waitFor();
      await screenshot(page, nav.toLowerCase());
    }
  });

  it("works by keyboard alone and at phone width", async () => {
    const { h, browser } = ui;
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.goto(`${h.url}/ui/`);
    // The token field has focus on arrival; Tab reaches the button, Enter presses it.
    await phone.getByLabel("Admin token").waitFor();
    expect(await phone.evaluate("document.activeElement?.getAttribute('name')")).toBe("token");
    await phone.keyboard.type(h.token);
    await phone.keyboard.press("Tab");
    expect(await phone.evaluate("document.activeElement?.textContent")).toBe("Sign in");
    await phone.keyboard.press("Enter");
    await phone.getByRole("heading", { name: "Applications" }).waitFor();
    const acme = phone.getByRole("link", { name: "Acme Corp" });
    await acme.focus();
    await phone.keyboard.press("Enter");
    await phone.getByRole("heading", { name: "Endpoints of Acme Corp" }).waitFor();
    const width = await phone.evaluate<number>("document.documentElement.scrollWidth");
    expect(width).toBeLessThanOrEqual(390);
    await screenshot(phone, "endpoints-phone-390");
    await phone.close();
  });
});
