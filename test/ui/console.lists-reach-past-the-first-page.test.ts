/**
 * The applications (oldest first) and endpoints (newest first) lists show a page of 250 and a
 * button for the next one, so every application and endpoint can be reached, however many there
 * are, including one just added. So do the replay jobs (50 a page) and a message's endpoints, each
 * with every one of its attempts: both stopped at their first page.
 */
import { describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

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

    await page.getByRole("button", { name: "More applications" }).click({ timeout: 15_000 });
    await list.getByRole("link", { name: `App ${MANY}`, exact: true }).waitFor();
    expect(await list.locator("tbody tr").count()).toBe(MANY);
    expect(await page.getByRole("button", { name: "More applications" }).count()).toBe(0);

    await page.getByLabel("Name").fill("Just made");
    await page.getByRole("button", { name: "Create application" }).click();
    await list.getByRole("link", { name: "Just made", exact: true }).waitFor();
  });

  it("reaches every endpoint of an application, newest first, the oldest one too", async () => {
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
    const rows = list.locator("tbody tr");
    await list.getByRole("link", { name: rx.url("/ep/2"), exact: true }).waitFor();
    await expect
      .poll(() => rows.first().getByRole("link").textContent())
      .toBe(rx.url(`/ep/${MANY}`));
    const oldest = list.getByRole("link", { name: rx.url("/ep/1"), exact: true });
    expect(await oldest.count()).toBe(0);

    await page.getByRole("button", { name: "More endpoints" }).click({ timeout: 15_000 });
    await oldest.waitFor();
    expect(await rows.count()).toBe(MANY);
    expect(await rows.last().getByRole("link").textContent()).toBe(rx.url("/ep/1"));

    // One just added comes first.
    await page.getByLabel("URL").fill(rx.url("/just-added"));
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await list.getByRole("link", { name: rx.url("/just-added"), exact: true }).waitFor();
    expect(await rows.first().getByRole("link").textContent()).toBe(rx.url("/just-added"));
  });

  it("reaches every replay job, the oldest one too", async () => {
    const { h, page } = ui;
    // Scheduled an hour ahead, so each stays in the list as it is, however slow the test.
    const startAt = new Date(Date.now() + 3_600_000).toISOString();
    const ids: string[] = [];
    for (let i = 1; i <= 51; i++) {
      const job = await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
        since: new Date(Date.now() - 3_600_000).toISOString(),
        startAt,
      });
      expect(job.status).toBe(202);
      ids.push(job.body.id);
    }
    await page.goto(`${h.url}/ui/#/jobs`);
    const list = page.getByRole("table", { name: "Newest first" });
    const rows = list.locator("tbody tr");
    await list.getByRole("link", { name: ids[50]!, exact: true }).waitFor();
    expect(await rows.count()).toBe(50);
    const oldest = list.getByRole("link", { name: ids[0]!, exact: true });
    expect(await oldest.count()).toBe(0);

    await page.getByRole("button", { name: "More jobs" }).click({ timeout: 15_000 });
    await oldest.waitFor({ timeout: 15_000 });
    expect(await rows.count()).toBe(51);
    expect(await page.getByRole("button", { name: "More jobs" }).count()).toBe(0);
  });

  it("reaches every endpoint of a message, and every attempt of each", async () => {
    const { h, rx, page } = ui;
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", { name: "Wide" });
    for (let i = 1; i <= MANY; i++) {
      const res = await h.api("POST", `/api/v1/app/${app.body.id}/endpoint`, {
        url: rx.url(`/wide/${i}`),
      });
      expect(res.status).toBe(201);
    }
    // One message to all of them: 251 endpoints and 251 attempts, each past one page of 250.
    const msg = await h.svix.message.create(app.body.id, { eventType: "order.paid", payload: {} });
    await expect
      .poll(() => h.events.filter(deliveryOf(msg.id, "succeeded")).length, { timeout: 20_000 })
      .toBe(MANY);

    await page.goto(`${h.url}/ui/#/app/${app.body.id}/message/${msg.id}`);
    const deliveries = page.getByRole("region", { name: "Deliveries" });
    const cards = deliveries.getByRole("article");
    await cards.nth(249).waitFor();
    expect(await cards.count()).toBe(250);

    await page.getByRole("button", { name: "More endpoints" }).click({ timeout: 15_000 });
    await cards.nth(MANY - 1).waitFor({ timeout: 15_000 });
    expect(await cards.count()).toBe(MANY);
    expect(await page.getByRole("button", { name: "More endpoints" }).count()).toBe(0);
    // Every endpoint's timeline has its attempt, the one past the first page of attempts too.
    const attempts = await cards.evaluateAll((all) =>
      all.map((c) => c.querySelectorAll("ol li").length),
    );
    expect(attempts).toEqual(Array.from({ length: MANY }, () => 1));
  });
});
