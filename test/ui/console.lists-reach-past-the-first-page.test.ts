/**
 * The applications and endpoints lists show a page of 250 and a button for the next one, so every
 * application and endpoint can be reached, however many there are, including one just added.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";

const MANY = 251;

describe("operator console: long lists", () => {
  const ui = useDashboard({ signedIn: true });

  it("reaches every application, the newest one too", async () => {
    const { h, page } = ui;
    for (let i = 1; i <= MANY; i++) {
      const res = await h.api("POST", "/api/v1/app", { name: `App ${i}` });
      expect(res.status).toBe(201);
    }
    await page.reload();
    const list = page.getByRole("table", { name: "Applications" });
    await list.getByRole("link", { name: "App 250", exact: true }).waitFor();
    expect(await list.getByRole("link", { name: `App ${MANY}`, exact: true }).count()).toBe(0);

    await page.getByRole("button", { name: "More applications" }).click({ timeout: 5_000 });
    await list.getByRole("link", { name: `App ${MANY}`, exact: true }).waitFor();
    expect(await list.locator("tbody tr").count()).toBe(MANY);
    expect(await page.getByRole("button", { name: "More applications" }).count()).toBe(0);

    await page.getByLabel("Name").fill("Just made");
    await page.getByRole("button", { name: "Create application" }).click();
    await list.getByRole("link", { name: "Just made", exact: true }).waitFor();
  });

  it("reaches every endpoint of an application, the newest one too", async () => {
    const { h, rx, page } = ui;
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", { name: "Busy" });
    for (let i = 1; i <= MANY; i++) {
      const res = await h.api("POST", `/api/v1/app/${app.body.id}/endpoint`, {
        url: rx.url(`/ep/${i}`),
      });
      expect(res.status).toBe(201);
    }
    await page.goto(`${h.url}/ui/#/app/${app.body.id}/endpoints`);
    const list = page.getByRole("table", { name: /Endpoints and their health/ });
    await list.getByRole("link", { name: rx.url("/ep/250"), exact: true }).waitFor();
    const last = list.getByRole("link", { name: rx.url(`/ep/${MANY}`), exact: true });
    expect(await last.count()).toBe(0);

    await page.getByRole("button", { name: "More endpoints" }).click({ timeout: 5_000 });
    await last.waitFor();
    expect(await list.locator("tbody tr").count()).toBe(MANY);

    await page.getByLabel("URL").fill(rx.url("/just-added"));
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await list.getByRole("link", { name: rx.url("/just-added"), exact: true }).waitFor();
  });
});
