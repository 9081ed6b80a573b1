/**
 * A customer with a keyboard alone reaches every action of the portal with Tab, in the page's
 * order, and uses it with Enter: send a test event, reveal and rotate the secret, disable and
 * enable, delete, edit, resend a message, add an endpoint; and the exact time of a relative one
 * ("5 min ago"), which was only a tooltip, is read with it and shown once Tab reaches its row.
 * The questions asked first (rotate, delete) are the page's own dialogs: they open with focus on
 * Cancel, so Enter answers "no", Tab reaches the action's own button and Escape answers "no" too;
 * focus is back on the button that asked either way.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: by keyboard alone", () => {
  const ui = useDashboard();
  let appId: string;
  let epId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    const msg = await h.svix.message.create(appId, { eventType: "order.paid", payload: { a: 1 } });
    msgId = msg.id;
    await h.waitFor((e) => e.type === "delivery" && e.messageId === msgId && e.attempt !== null);
    await openPortal(page, h, appId);
  });

  /** The focused control: its label, or its name, or its text. */
  const focused = () =>
    ui.page.evaluate<string>(
      "(() => { const a = document.activeElement; return a.labels?.[0]?.textContent ?? a.getAttribute('aria-label') ?? a.textContent ?? ''; })()",
    );

  /** Presses Tab until the control named `name` has focus, as someone finding it would. */
  const tabTo = async (name: string) => {
    const passed: string[] = [];
    for (let i = 0; i < 40; i++) {
      await ui.page.keyboard.press("Tab");
      const now = await focused();
      if (now === name) return;
      passed.push(now);
    }
    throw new Error(`Tab never reached ${name}; it went through ${passed.join(" | ")}`);
  };

  /** The question named `name` the page asks before an action, once open with focus on Cancel. */
  const question = async (name: string | RegExp) => {
    const dialog = ui.page.getByRole("dialog", { name });
    await dialog.waitFor();
    expect(await focused()).toBe("Cancel");
    return dialog;
  };

  /** Waits until the button named `name` is no longer busy: a press meanwhile is ignored. */
  const ready = (name: string) =>
    expect
      .poll(() => ui.page.getByRole("button", { name }).getAttribute("aria-disabled"))
      .toBeNull();

  const said = (text: string | RegExp) =>
    ui.page.getByRole("status").getByText(text).first().waitFor();

  it("uses every action of an endpoint's page", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    await page.getByRole("heading", { name: /\/hook$/ }).waitFor();

    await tabTo("Send test event");
    await page.keyboard.press("Enter");
    await said(/^Test event msg_\w+ queued$/);
    expect(await focused()).toBe("Send test event");

    await tabTo("Reveal secret");
    await page.keyboard.press("Enter");
    await page.getByText(/^whsec_/).waitFor();
    const first = await page.getByText(/^whsec_/).innerText();

    await tabTo("Rotate secret");
    await page.keyboard.press("Enter");
    let asked = await question("Rotate the signing secret?");
    await page.keyboard.press("Enter");
    await asked.waitFor({ state: "detached" });
    expect(await focused()).toBe("Rotate secret");
    expect(await page.getByText(/^whsec_/).innerText()).toBe(first);
    await ready("Rotate secret");
    await page.keyboard.press("Enter");
    asked = await question("Rotate the signing secret?");
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("Rotate secret");
    await page.keyboard.press("Enter");
    await said("Secret rotated");
    expect(await page.getByText(/^whsec_/).innerText()).not.toBe(first);
    expect(await focused()).toBe("Rotate secret");

    await tabTo("Disable");
    await page.keyboard.press("Enter");
    await said("Endpoint disabled");
    expect(await focused()).toBe("Enable");
    // The button stays busy (a press ignored) until the page has read the endpoint again after
    // the toast: a press then, on a loaded machine, went unheard and the test waited for ever.
    await expect
      .poll(() => page.getByRole("button", { name: "Enable" }).getAttribute("aria-disabled"))
      .toBeNull();
    await page.keyboard.press("Enter");
    await said("Endpoint enabled");
    expect(await focused()).toBe("Disable");

    await tabTo("Delete endpoint");
    await page.keyboard.press("Enter");
    asked = await question(/^Delete /);
    await page.keyboard.press("Escape");
    await asked.waitFor({ state: "detached" });
    expect(await focused()).toBe("Delete endpoint");

    await tabTo("Description");
    await page.keyboard.type("Orders");
    await page.keyboard.press("Enter");
    await said("Endpoint saved");
    await expect
      .poll(async () => (await h.svix.endpoint.get(appId, epId)).description)
      .toBe("Orders");
    expect((await h.svix.endpoint.get(appId, epId)).disabled).toBe(false);
  });

  it("resends a message and adds an endpoint", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    await page.getByRole("heading", { name: /order\.paid/ }).waitFor();
    await tabTo(`Resend to this endpoint, ${rx.url("/hook")}`);
    await page.keyboard.press("Enter");
    await said("Resend queued");

    await page.goto(`${h.url}/portal/#/app/${appId}/endpoints`);
    await page.getByRole("heading", { name: "Endpoints of Acme" }).waitFor();
    await tabTo("URL");
    await page.keyboard.type(rx.url("/second"));
    await page.keyboard.press("Enter");
    await said(`Endpoint ${rx.url("/second")} added`);
    await page.getByRole("link", { name: rx.url("/second") }).waitFor();
  });

  it("reaches the exact time of a relative one", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/messages`);
    const row = page
      .getByRole("table", { name: "Newest messages first" })
      .getByRole("row")
      .filter({ hasText: msgId });
    const when = row.locator("time");
    await when.waitFor();
    const exact = await page.evaluate<string>(
      `new Date(${JSON.stringify(await when.getAttribute("datetime"))}).toLocaleString(undefined, { timeZoneName: "short" })`,
    );
    // A screen reader reads it with the relative time: it is not only the tooltip.
    const text = (await when.textContent())!.replace(/\s/g, " ");
    expect(text).toMatch(/^\d+ (s|min) ago \(/);
    expect(text).toContain(` (${exact})`);
    // Out of sight until the keyboard is in its row; then shown, within the table.
    const shown = async () => (await row.getByText(`(${exact})`).boundingBox())?.width ?? 0;
    expect(await shown()).toBeLessThanOrEqual(1);
    await tabTo(msgId);
    expect(await shown()).toBeGreaterThan(50);
    await page.keyboard.press("Shift+Tab");
    expect(await shown()).toBeLessThanOrEqual(1);
  });
});
