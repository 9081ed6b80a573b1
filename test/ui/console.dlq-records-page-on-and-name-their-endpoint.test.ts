/**
 * The open dead letters on the console's dead-letter page: past the newest 50 with "More
 * records", each naming the endpoint it was for. The list stopped at 50, and its "Application"
 * column showed the application's id while linking to the endpoint.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER } from "../support/dlq.js";

describe("operator console: the open dead-letter records", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status: 400, body: "bad" }),
  });

  beforeAll(async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/orders"));
    await deadLetters(h, ep, 53);
    await signIn(page, h.url, h.token);
  });

  it("shows the newest 50, the rest with More, and each record's endpoint", async () => {
    const { rx, page } = ui;
    await page.getByRole("navigation").getByRole("link", { name: "Dead letters" }).click();
    const records = page.getByRole("table", { name: "Open records, newest first" });
    const rows = records.locator("tbody tr");
    await rows.nth(49).waitFor();
    expect(await rows.count()).toBe(50);
    const endpoint = records.getByRole("link", { name: rx.url("/orders") });
    expect(await endpoint.count()).toBe(50);

    await page.getByRole("button", { name: "More records" }).click({ timeout: 15_000 });
    await rows.nth(52).waitFor({ timeout: 15_000 });
    expect(await rows.count()).toBe(53);
    expect(await page.getByRole("button", { name: "More records" }).count()).toBe(0);
  });
});
