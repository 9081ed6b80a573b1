/**
 * Every main page of the console and the portal, with the data someone debugging an endpoint
 * meets (a failing endpoint whose circuit is open, dead letters, a replay job, an attempt unfolded,
 * a revealed secret, a toast, an error), checked by axe-core: no rule it runs by default (WCAG 2 A
 * and AA, and its best practices) is broken, at any level (a control without a name or named
 * otherwise than it reads, text too faint to read, a table column without a header, a broken
 * landmark or ARIA role), the questions asked before deleting an endpoint and before replaying a
 * dead-letter group included. Before, the dead-letter groups' "Replay group" buttons were named
 * "Replay all … records of …", which someone saying what they see ("click Replay group") could
 * not reach, and the button columns had no header.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "../support/axe.js";
import { signIn, useDashboard } from "../support/browser.js";
import { ONE_ATTEMPT, post } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";

describe("the dashboard's main pages, checked by axe", () => {
  const ui = useDashboard({
    // Two failures in a row open a circuit, whose probe is far off: the banner stays up.
    hookline: { overrides: { breaker: { consecutiveFailures: 2, probeDelayMs: 60 * 60_000 } } },
    receiver: (req) =>
      req.path === "/billing"
        ? { status: 500, body: '{"error":"database down"}' }
        : { status: 200, body: "ok" },
  });
  let appId: string;
  let billing: string;
  let orders: string;
  let delivered: string;
  let recordId: string;
  let jobId: string;
  let portal: Page;

  beforeAll(async () => {
    const { h, rx, page, browser } = ui;
    appId = (await h.svix.application.create({ name: "Acme Store" })).id;
    orders = (
      await h.svix.endpoint.create(appId, {
        url: rx.url("/orders"),
        description: "Order events",
        filterTypes: ["order.created", "invoice.failed"],
      })
    ).id;
    const ep = await h.api<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, {
      url: rx.url("/billing"),
      description: "Billing",
      deliveryPolicy: ONE_ATTEMPT,
    });
    billing = ep.body.id;
    // Two given up on at the failing endpoint (which opens its circuit), a third held back by it.
    const ids = [];
    for (const n of [1, 2, 3]) ids.push(await post(h, appId, { invoice: n, amount: 1200 }));
    for (const id of ids.slice(0, 2)) await h.waitFor(deliveryOf(id, "dead", billing));
    delivered = ids[0]!;
    await h.waitFor(deliveryOf(delivered, "succeeded", orders));
    const records = await h.api<{ data: { id: string }[] }>(
      "GET",
      `/api/v1/dlq?endpoint_id=${billing}&limit=10`,
    );
    recordId = records.body.data[0]!.id;
    const job = await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
      since: new Date(Date.now() - 3600_000).toISOString(),
      endpointId: billing,
      // Later, so that the records stay as they are while the pages are checked.
      startAt: new Date(Date.now() + 3600_000).toISOString(),
      note: "after the outage",
    });
    jobId = job.body.id;
    await signIn(page, h.url, h.token);
    portal = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const link = await h.svix.authentication.appPortalAccess(appId, { expiry: 3600 });
    await portal.goto(link.url);
    await portal.getByRole("heading", { name: "Endpoints of Acme Store" }).waitFor();
  });

  /** Opens `route` of the console or the portal and waits for what shows it is drawn. */
  async function open(
    page: Page,
    route: string,
    drawn: (page: Page) => Promise<void>,
  ): Promise<void> {
    const base = page === portal ? "/portal/" : "/ui/";
    await page.goto(`${ui.h.url}${base}#${route}`);
    await drawn(page);
  }

  const heading = (name: string | RegExp) => (page: Page) =>
    page.getByRole("heading", { name }).first().waitFor();

  it("console: sign-in", async () => {
    const page = await ui.browser.newPage();
    try {
      await page.goto(`${ui.h.url}/ui/`);
      await page.getByLabel("Admin token").waitFor();
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("console: applications, with a portal link made", async () => {
    const { page } = ui;
    await open(page, "/apps", heading("Applications"));
    await page.locator(`[data-key="portal-${appId}"]`).click();
    await page.getByText("Portal link for Acme Store").waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });

  it("console: an application's endpoints", async () => {
    const { page } = ui;
    await open(page, `/app/${appId}/endpoints`, async (p) => {
      await p.getByText("Circuit Open").waitFor();
    });
    expect(await axeViolations(page)).toEqual([]);
  });

  it("console: a failing endpoint with its circuit open, an attempt unfolded", async () => {
    const { page } = ui;
    await open(page, `/app/${appId}/endpoint/${billing}`, async (p) => {
      await p.getByTestId("circuit-banner").waitFor();
      await p.getByTestId("message-counts").waitFor();
    });
    await page.locator("summary", { hasText: "Request and response" }).first().click();
    await page.getByLabel("Response body").first().waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });

  it("console: the messages and a message's page", async () => {
    const { page } = ui;
    await open(page, `/app/${appId}/messages`, async (p) => {
      await p
        .getByRole("table", { name: "Newest messages first" })
        .getByText("fail")
        .first()
        .waitFor();
    });
    expect(await axeViolations(page)).toEqual([]);
    await open(page, `/app/${appId}/message/${delivered}`, async (p) => {
      await p.getByText("hookline stopped trying").waitFor();
    });
    expect(await axeViolations(page)).toEqual([]);
  });

  it("console: the dead letters and a record", async () => {
    const { page } = ui;
    await open(page, "/dlq", async (p) => {
      await p.getByRole("button", { name: `Replay ${recordId}` }).waitFor();
    });
    expect(await axeViolations(page)).toEqual([]);
    // The question before a group's replay, open.
    await page.getByRole("button", { name: /^Replay group/ }).click();
    const asked = page.getByRole("dialog", { name: /^Replay \d+ / });
    await asked.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await asked.getByRole("button", { name: "Cancel" }).click();
    await asked.waitFor({ state: "detached" });
    await open(page, `/dlq/${recordId}`, async (p) => {
      await p.getByRole("table", { name: "History" }).waitFor();
    });
    // Resolving without a note says why not, as an error (the toast's alert).
    await page.getByRole("button", { name: "Resolve" }).click();
    await page
      .locator("#toast")
      .getByRole("alert")
      .getByText("Write a note saying why first.")
      .waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });

  it("console: the replay jobs and a job", async () => {
    const { page } = ui;
    await open(page, "/jobs", async (p) => {
      await p.getByRole("link", { name: jobId }).waitFor();
    });
    expect(await axeViolations(page)).toEqual([]);
    await open(page, `/jobs/${jobId}`, async (p) => {
      await p.getByTestId("job-progress").waitFor();
    });
    expect(await axeViolations(page)).toEqual([]);
  });

  it("console: alerts and the system", async () => {
    const { page } = ui;
    await open(page, "/alerts", async (p) => {
      await p.getByRole("table", { name: "Firing" }).waitFor();
    });
    expect(await axeViolations(page)).toEqual([]);
    await open(page, "/system", async (p) => {
      await p.getByText("Queue depth").waitFor();
    });
    expect(await axeViolations(page)).toEqual([]);
  });

  it("portal: the endpoints", async () => {
    await open(portal, `/app/${appId}/endpoints`, async (p) => {
      await p.getByText("Circuit Open").waitFor();
    });
    expect(await axeViolations(portal)).toEqual([]);
  });

  it("portal: a failing endpoint with its secret revealed", async () => {
    await open(portal, `/app/${appId}/endpoint/${billing}`, async (p) => {
      await p.getByTestId("circuit-banner").waitFor();
    });
    await portal.getByRole("button", { name: "Reveal secret" }).click();
    await portal.getByText(/^whsec_/).waitFor();
    await portal.getByRole("button", { name: "Send test event" }).click();
    await portal
      .getByRole("status")
      .getByText(/^Test event msg_\w+ queued$/)
      .waitFor();
    expect(await axeViolations(portal)).toEqual([]);
  });

  it("portal: the messages and a message's page", async () => {
    await open(portal, `/app/${appId}/messages`, async (p) => {
      await p
        .getByRole("table", { name: "Newest messages first" })
        .getByText("fail")
        .first()
        .waitFor();
    });
    expect(await axeViolations(portal)).toEqual([]);
    // With the keyboard in a row, its time's exact time shows beside it (a focus the keyboard
    // moved: the page was clicked before).
    await portal.getByRole("link", { name: delivered }).focus();
    await portal.keyboard.press("Shift+Tab");
    await portal.keyboard.press("Tab");
    const row = portal.getByRole("row").filter({ hasText: delivered });
    expect((await row.locator("time > .exact").boundingBox())!.width).toBeGreaterThan(1);
    expect(await axeViolations(portal)).toEqual([]);
    await open(portal, `/app/${appId}/message/${delivered}`, async (p) => {
      await p.getByText("hookline stopped trying").waitFor();
    });
    expect(await axeViolations(portal)).toEqual([]);
  });

  it("portal: an endpoint's page and a message's at phone width", async () => {
    const { h, browser } = ui;
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      const link = await h.svix.authentication.appPortalAccess(appId, { expiry: 3600 });
      await phone.goto(link.url);
      await phone.getByRole("heading", { name: "Endpoints of Acme Store" }).waitFor();
      expect(await axeViolations(phone)).toEqual([]);
      await phone.goto(`${h.url}/portal/#/app/${appId}/endpoint/${billing}`);
      await phone.getByTestId("circuit-banner").waitFor();
      expect(await axeViolations(phone)).toEqual([]);
      await phone.goto(`${h.url}/portal/#/app/${appId}/message/${delivered}`);
      await phone.getByText("hookline stopped trying").waitFor();
      expect(await axeViolations(phone)).toEqual([]);
    } finally {
      await phone.close();
    }
  });

  it("portal: the question before deleting an endpoint, at phone width", async () => {
    const { h, browser } = ui;
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      const link = await h.svix.authentication.appPortalAccess(appId, { expiry: 3600 });
      await phone.goto(link.url);
      await phone.getByRole("heading", { name: "Endpoints of Acme Store" }).waitFor();
      await phone.goto(`${h.url}/portal/#/app/${appId}/endpoint/${orders}`);
      await phone.getByRole("button", { name: "Delete endpoint" }).click();
      const asked = phone.getByRole("dialog", { name: /^Delete / });
      await asked.waitFor();
      expect(await axeViolations(phone)).toEqual([]);
      // Within the window, its buttons too.
      const box = (await asked.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      for (const b of await asked.getByRole("button").all()) {
        const at = (await b.boundingBox())!;
        expect(at.x + at.width).toBeLessThanOrEqual(box.x + box.width);
      }
      await asked.getByRole("button", { name: "Cancel" }).click();
      await asked.waitFor({ state: "detached" });
    } finally {
      await phone.close();
    }
  });
});
