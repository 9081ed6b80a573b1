/**
 * The message log as a customer looking for a failed event uses it: narrow it to a time window,
 * page past the newest 50, and be told plainly when a filter is not valid (it used to throw in the
 * page, keep showing the previous results, and toast "Live update failed" every two seconds).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: searching the message log", () => {
  const ui = useDashboard();
  const errors: string[] = [];
  let appId: string;
  let early: { id: string; at: number };
  let late: { id: string; at: number };

  const send = async (eventType: string) => {
    const msg = await ui.h.svix.message.create(appId, { eventType, payload: {} });
    return { id: msg.id, at: msg.timestamp.getTime() };
  };

  beforeAll(async () => {
    const { h, page } = ui;
    page.on("pageerror", (e) => errors.push(e.message));
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    early = await send("order.created");
    // The time fields are to the second: the late message is sent in a later second than the early one.
    while (Math.floor((Date.now() - 20) / 1000) <= Math.floor(early.at / 1000)) {
      await new Promise((r) => setTimeout(r, 20));
    }
    late = await send("order.paid");
    for (let i = 0; i < 53; i++) await send("invoice.sent");
    await openPortal(page, h, appId);
    await page.getByRole("navigation").getByRole("link", { name: "Messages" }).click();
    await page.getByRole("table", { name: "Newest messages first" }).waitFor();
  });

  const rows = () =>
    ui.page.getByRole("table", { name: "Newest messages first" }).locator("tbody tr");
  /** The value a datetime-local field shows for `ms`, in the browser's time zone. */
  const local = (ms: number) =>
    ui.page.evaluate((t) => {
      const d = new Date(Math.floor(t / 1000) * 1000);
      return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
    }, ms);

  it("shows the newest 50 first and the rest with More", async () => {
    const { page } = ui;
    await rows().nth(49).waitFor();
    expect(await rows().count()).toBe(50);
    await page.getByRole("button", { name: "More messages" }).click({ timeout: 15_000 });
    await rows().nth(54).waitFor({ timeout: 15_000 });
    expect(await rows().count()).toBe(55);
    await expect(page.getByRole("button", { name: "More messages" }).count()).resolves.toBe(0);
  });

  it("narrows the log to a time window", async () => {
    const { page } = ui;
    await page.getByLabel("Sent before").fill(await local(late.at), { timeout: 15_000 });
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("link", { name: late.id }).waitFor({ state: "detached", timeout: 15_000 });
    expect(await rows().allInnerTexts()).toEqual([expect.stringContaining(early.id)]);

    await page.getByLabel("Sent before").fill("");
    await page.getByLabel("Sent after").fill(await local(late.at));
    await page.getByLabel("Event types").fill("order.created order.paid");
    await page.getByRole("button", { name: "Search" }).click();
    await page
      .getByRole("link", { name: early.id })
      .waitFor({ state: "detached", timeout: 15_000 });
    expect(await rows().allInnerTexts()).toEqual([expect.stringContaining(late.id)]);
  });

  it("says which event type is not valid, and keeps working", async () => {
    const { page } = ui;
    await page.getByLabel("Sent after").fill("");
    await page.getByLabel("Event types").fill("order.paid bad/type");
    await page.getByRole("button", { name: "Search" }).click();
    const alert = page.getByRole("search").getByRole("alert");
    await alert.getByText(/"bad\/type"/).waitFor({ timeout: 15_000 });
    expect(await alert.innerText()).not.toContain("event_types");

    await page.getByLabel("Event types").fill("order.created");
    await page.getByRole("button", { name: "Search" }).click();
    await alert.waitFor({ state: "detached", timeout: 15_000 });
    await page.getByRole("link", { name: late.id }).waitFor({ state: "detached", timeout: 15_000 });
    expect(await rows().allInnerTexts()).toEqual([expect.stringContaining(early.id)]);
    expect(errors).toEqual([]);
  });
});
