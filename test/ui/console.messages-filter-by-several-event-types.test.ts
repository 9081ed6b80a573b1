/**
 * The message log's event-type filter takes several types separated by spaces or commas, as the
 * endpoint forms do, and shows the messages of any of them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";

describe("operator console: filtering messages by event type", () => {
  const ui = useDashboard();
  let appId: string;
  beforeAll(async () => {
    const { h, page } = ui;
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", { name: "Acme" });
    appId = app.body.id;
    for (const eventType of ["invoice.paid", "order.created", "user.deleted"]) {
      const res = await h.api("POST", `/api/v1/app/${appId}/msg`, { eventType, payload: {} });
      expect(res.status).toBe(202);
    }
    await signIn(page, h.url, h.token);
  });

  const shownTypes = async (): Promise<string[]> => {
    const rows = ui.page.getByRole("table", { name: "Newest messages first" }).locator("tbody tr");
    return (await rows.locator("td:nth-child(2)").allInnerTexts()).sort();
  };

  for (const [typed, label] of [
    ["invoice.paid order.created", "spaces"],
    ["invoice.paid, order.created", "a comma and a space"],
    [" invoice.paid,order.created ", "a comma"],
  ] as const) {
    it(`shows the messages of each type when they are separated by ${label}`, async () => {
      const { h, page } = ui;
      // A fresh page each time (a hash change draws it anew, without the last filter).
      await page.goto(`${h.url}/ui/#/apps`);
      await page.getByRole("heading", { name: "Applications" }).waitFor();
      await page.goto(`${h.url}/ui/#/app/${appId}/messages`);
      const log = page.getByRole("table", { name: "Newest messages first" });
      await log.getByText("user.deleted").waitFor();
      await page.getByLabel("Event types").fill(typed);
      await page.getByRole("button", { name: "Search" }).click();
      await log.getByText("user.deleted").waitFor({ state: "detached", timeout: 15_000 });
      expect(await shownTypes()).toEqual(["invoice.paid", "order.created"]);
    });
  }
});
