/**
 * Rotate secret and Delete endpoint ask first, in the page (ui/src/confirm.ts): a dialog named by
 * its question and described by what follows, with Cancel and the action's own words, opening
 * with focus on Cancel (the safe answer) and giving it back to the button that asked once
 * answered, however answered (the page moving to another route answers Cancel). The action runs
 * once however many times Enter is pressed on its button: the first press takes the dialog away,
 * the next ones find the button that asked, busy.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: the question before rotating or deleting", () => {
  const ui = useDashboard();
  let appId: string;
  let epId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    await openPortal(page, h, appId);
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    await page.getByRole("heading", { level: 1, name: rx.url("/hook") }).waitFor();
  });

  /** The text of the control that has focus. */
  const focused = () => ui.page.evaluate<string>("document.activeElement?.textContent ?? ''");

  const replaced = async () =>
    (
      await ui.h.api<{ previousSecrets: unknown[] }>(
        "GET",
        `/api/v1/app/${appId}/endpoint/${epId}/secret`,
      )
    ).body.previousSecrets.length;

  /** Waits until the page's button named `name` is no longer busy: a press meanwhile is ignored. */
  const ready = (name: string) =>
    expect
      .poll(() => ui.page.getByRole("button", { name }).getAttribute("aria-disabled"))
      .toBeNull();

  it("asks by its question, says what follows, and starts on Cancel", async () => {
    const { page } = ui;
    await page.getByRole("button", { name: "Rotate secret" }).click();
    const asked = page.getByRole("dialog", { name: "Rotate the signing secret?" });
    await asked.waitFor();
    // Its description, as a screen reader reads it after its name.
    const description = await page.evaluate<string>(
      "(() => { const d = document.querySelector('dialog[open]'); return document.getElementById(d.getAttribute('aria-describedby')).textContent; })()",
    );
    expect(description).toBe("The old one keeps signing for 24\u00a0h beside the new one.");
    expect(await asked.getByRole("button").allInnerTexts()).toEqual(["Cancel", "Rotate secret"]);
    expect(await focused()).toBe("Cancel");
    await asked.getByRole("button", { name: "Cancel" }).click();
    await asked.waitFor({ state: "detached" });
    expect(await focused()).toBe("Rotate secret");
    expect(await replaced()).toBe(0);
  });

  it("takes Escape as Cancel and gives the focus back", async () => {
    const { page, rx } = ui;
    await ready("Delete endpoint");
    await page.getByRole("button", { name: "Delete endpoint" }).focus();
    await page.keyboard.press("Enter");
    const asked = page.getByRole("dialog", { name: `Delete ${rx.url("/hook")}?` });
    await asked.waitFor();
    await page.keyboard.press("Escape");
    await asked.waitFor({ state: "detached" });
    expect(await focused()).toBe("Delete endpoint");
    expect((await ui.h.api("GET", `/api/v1/app/${appId}/endpoint/${epId}`)).status).toBe(200);
  });

  it("takes the page moving elsewhere as Cancel", async () => {
    const { h, page, rx } = ui;
    await ready("Rotate secret");
    await page.getByRole("button", { name: "Rotate secret" }).click();
    const asked = page.getByRole("dialog", { name: "Rotate the signing secret?" });
    await asked.waitFor();
    // As the browser's Back button, or the page saying the link has ended, would move it.
    await page.evaluate(`location.hash = "#/app/${appId}/messages"`);
    await asked.waitFor({ state: "detached" });
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    await page.getByRole("heading", { level: 1, name: rx.url("/hook") }).waitFor();
    expect(await replaced()).toBe(0);
  });

  it("rotates once however many times Enter is pressed on Rotate secret", async () => {
    const { page } = ui;
    await ready("Rotate secret");
    await page.getByRole("button", { name: "Rotate secret" }).focus();
    await page.keyboard.press("Enter");
    const asked = page.getByRole("dialog", { name: "Rotate the signing secret?" });
    await asked.getByRole("button", { name: "Rotate secret" }).focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press("Enter");
    await page.locator("#toast").getByText("Secret rotated").waitFor();
    // A later Enter may have asked again (once the first rotation was done): it went to Cancel.
    if (await asked.isVisible()) await page.keyboard.press("Escape");
    await asked.waitFor({ state: "detached" });
    expect(await replaced()).toBe(1);
  });

  it("deletes once however many times Enter is pressed on Delete endpoint", async () => {
    const { h, page, rx } = ui;
    await ready("Delete endpoint");
    await page.getByRole("button", { name: "Delete endpoint" }).focus();
    await page.keyboard.press("Enter");
    const asked = page.getByRole("dialog", { name: `Delete ${rx.url("/hook")}?` });
    await asked.getByRole("button", { name: "Delete endpoint" }).focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Endpoints of Acme" }).waitFor();
    // A second delete would have been refused (404), an error in place of the first one's toast.
    await page
      .locator("#toast")
      .getByRole("status")
      .getByText(`Endpoint ${rx.url("/hook")} deleted`)
      .waitFor();
    expect(await page.locator("#toast").getByRole("alert").textContent()).toBe("");
    expect((await h.api("GET", `/api/v1/app/${appId}/endpoint/${epId}`)).status).toBe(404);
  });
});
