/**
 * An operator opens a link to a message (shared by a colleague, bookmarked, or the page a session
 * that ended was on) in a tab not signed in: signing in shows that message, not the application
 * list with the link lost.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";

describe("operator console: a link opened before signing in", () => {
  const ui = useDashboard();
  let appId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
  });

  it("shows the linked page once signed in", async () => {
    const { h, page } = ui;
    const address = `${h.url}/ui/#/app/${appId}/message/${msgId}`;
    await page.goto(address);
    await page.getByLabel("Admin token").fill(h.token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: `order.paid ${msgId}` }).waitFor({ timeout: 10_000 });
    expect(page.url()).toBe(address);
  });
});
