/**
 * A question (ui/src/confirm.ts) goes when the page under it is drawn again, but not when the
 * page's live updates redraw a region of it: every page that asks updates every 2 s, and the
 * dead-letter groups' region is drawn again whenever a count changes, replacing the very button
 * that asked. On each page that asks, the question stays open across several updates (the groups'
 * one across a redraw of its button), and answered, gives focus back to the button as drawn now.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import {
  anEndpoint,
  deadLetters,
  PATIENT_BREAKER,
  type RecordOut,
  type TestEndpoint,
} from "../support/dlq.js";

describe("operator console: a question stays open while the page under it updates", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status: 503, body: "maintenance" }),
  });
  let orders: TestEndpoint;
  let records: RecordOut[];

  beforeAll(async () => {
    const { h, rx, page } = ui;
    orders = await anEndpoint(h, rx.url("/orders"));
    records = await deadLetters(h, orders, 2);
    await signIn(page, h.url, h.token);
  });

  /** Waits until the page has read `path` `n` more times: its live updates, every 2 s. */
  async function updates(path: string, n = 3): Promise<void> {
    for (let i = 0; i < n; i++) {
      await ui.page.waitForResponse(
        (r) => new URL(r.url()).pathname === path && r.request().method() === "GET",
      );
    }
  }

  /** The open question, still open and alone. */
  async function stillAsked(name: string): Promise<void> {
    expect(await ui.page.getByRole("dialog").count()).toBe(1);
    expect(await ui.page.getByRole("dialog", { name }).isVisible()).toBe(true);
  }

  it("on the dead letters, a group's question stays while its button is drawn again", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/ui/#/dlq`);
    const group = page.getByRole("button", {
      name: `Replay group: every exhausted record of ${rx.url("/orders")}`,
    });
    await group.click();
    const name = `Replay 2 exhausted records to ${rx.url("/orders")}?`;
    await page.getByRole("dialog", { name }).waitFor();
    await page.evaluate("window.asker = document.querySelector('[data-key^=\"group-\"]')");
    // One more record: the groups' region is drawn again, its button with it.
    await deadLetters(h, orders, 1);
    await page.getByRole("cell", { name: "3", exact: true }).waitFor();
    expect(await page.evaluate("window.asker.isConnected")).toBe(false);
    await updates("/api/v1/dlq/summary");
    await stillAsked(name);
    await page.getByRole("dialog", { name }).getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    // Focus is on the group's button as drawn now.
    expect(
      await page.evaluate(
        "document.activeElement?.isConnected && document.activeElement.getAttribute('data-key')",
      ),
    ).toBe(`group-${orders.endpointId}-exhausted`);
    expect((await h.api<{ data: unknown[] }>("GET", "/api/v1/dlq/replay")).body.data).toEqual([]);
  });

  it("on the dead letters, a bulk replay's question stays across updates", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/ui/#/dlq`);
    await page.getByRole("table", { name: "Groups of open records" }).waitFor();
    await page.getByRole("button", { name: "Start bulk replay" }).click();
    const name = `Replay 3 records to ${rx.url("/orders")}?`;
    await page.getByRole("dialog", { name }).waitFor();
    await updates("/api/v1/dlq/summary");
    await stillAsked(name);
    await page.getByRole("dialog", { name }).getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    expect((await h.api<{ data: unknown[] }>("GET", "/api/v1/dlq/replay")).body.data).toEqual([]);
  });

  it("on a record, the question before abandoning it stays across updates", async () => {
    const { h, page } = ui;
    const record = records[0]!;
    await page.goto(`${h.url}/ui/#/dlq/${record.id}`);
    await page.getByRole("table", { name: "History" }).waitFor();
    await page.getByLabel("Note").fill("customer closed their account");
    await page.getByRole("button", { name: "Abandon" }).click();
    const name = `Abandon ${record.id}?`;
    await page.getByRole("dialog", { name }).waitFor();
    await updates(`/api/v1/dlq/${record.id}`);
    await stillAsked(name);
    await page.getByRole("dialog", { name }).getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    expect((await h.api<{ state: string }>("GET", `/api/v1/dlq/${record.id}`)).body.state).toBe(
      "open",
    );
  });

  it("on a job, the question before cancelling it stays across updates", async () => {
    const { h, page } = ui;
    const job = await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
      endpointId: orders.endpointId,
      startAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(job.status).toBe(202);
    await page.goto(`${h.url}/ui/#/jobs/${job.body.id}`);
    await page.getByTestId("job-state").getByText("scheduled").waitFor();
    await page.getByRole("button", { name: "Cancel job" }).click();
    const name = `Cancel bulk replay ${job.body.id}?`;
    await page.getByRole("dialog", { name }).waitFor();
    await updates(`/api/v1/dlq/replay/${job.body.id}`);
    await stillAsked(name);
    await page.getByRole("dialog", { name }).getByRole("button", { name: "Keep job" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    const after = await h.api<{ state: string }>("GET", `/api/v1/dlq/replay/${job.body.id}`);
    expect(after.body.state).toBe("scheduled");
    expect((await h.api("POST", `/api/v1/dlq/replay/${job.body.id}/cancel`)).status).toBe(200);
  });

  it("on an endpoint, the question before deleting it stays across updates", async () => {
    const { h, rx, page } = ui;
    const path = `/api/v1/app/${orders.appId}/endpoint/${orders.endpointId}`;
    await page.goto(`${h.url}/ui/#/app/${orders.appId}/endpoint/${orders.endpointId}`);
    await page.getByRole("heading", { level: 1, name: rx.url("/orders") }).waitFor();
    await page.getByRole("button", { name: "Delete endpoint" }).click();
    const name = `Delete ${rx.url("/orders")}?`;
    await page.getByRole("dialog", { name }).waitFor();
    await updates(`${path}/circuit`);
    await stillAsked(name);
    await page.getByRole("dialog", { name }).getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    expect((await h.api("GET", path)).status).toBe(200);
  });
});
