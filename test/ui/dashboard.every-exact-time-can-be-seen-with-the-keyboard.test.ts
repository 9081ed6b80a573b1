/**
 * A relative time's exact time ("5 min ago (12/7/2026, 7:10:00 AM UTC)") is read by a screen
 * reader with it and, in a table, shown once the keyboard is in its row, on the row's link or
 * button. Where no link or button was near, a sighted keyboard user never saw it (the tooltip
 * needs a mouse): an alert about no endpoint has neither in its row, and an endpoint's last
 * success, its counts' next probe, a job's start and a delivery's next attempt are in an
 * endpoint's facts or a sentence, not in a row. Now an alert's row with nothing to follow takes
 * the focus on its time, and times outside tables show their exact time as they are. The long
 * lists' rows, which have a link, gain no stop in the Tab order. axe finds nothing on either.
 */
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { AlertRecord } from "../../src/store/port/observability.js";
import { axeViolations } from "../support/axe.js";
import { signIn, useDashboard } from "../support/browser.js";
import { BILLING_FAILS, heldForTheProbe } from "../support/circuit.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf } from "../support/hookline.js";

const MINUTE = 60_000;

/** Whether the exact time of relative time `when` is in sight: clipped, it is 1 px wide. */
const exactShown = async (when: Locator): Promise<boolean> =>
  ((await when.locator(".exact").boundingBox())?.width ?? 0) > 50;

/** The focused element: its tag, and the text of its table row (or "" out of a row). */
const focused = (page: Page) =>
  page.evaluate<{ tag: string; row: string }>(
    "(() => { const a = document.activeElement; return { tag: a.tagName, row: a.closest('tr')?.textContent ?? '' }; })()",
  );

/** Presses Tab until the focus is in the table row holding `text`; the tags passed on the way. */
async function tabToRow(page: Page, text: string): Promise<{ tag: string; row: string }> {
  const passed: string[] = [];
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press("Tab");
    const now = await focused(page);
    if (now.row.includes(text)) return now;
    passed.push(now.tag);
  }
  throw new Error(`Tab never reached the row of ${text}; it went through ${passed.join(" ")}`);
}

describe("operator console: an alert with no endpoint to follow", () => {
  const clock = new FakeClock(Date.now());
  const ui = useDashboard({ hookline: { overrides: { clock } } });
  let firingAlert: AlertRecord;

  beforeAll(async () => {
    const { h, page } = ui;
    const alert = {
      rule: "queue_lag",
      severity: "warning" as const,
      endpointId: null,
      value: 120,
      threshold: 60,
      supersededBy: null,
    };
    firingAlert = {
      ...alert,
      id: "alrt_firing",
      summary: "queue lag (firing)",
      since: clock.now() - 10 * MINUTE,
      resolvedAt: null,
    };
    await h.hookline.store.saveAlerts({
      holder: "test",
      alerts: [
        firingAlert,
        {
          ...alert,
          id: "alrt_resolved",
          summary: "queue lag (resolved)",
          since: clock.now() - 30 * MINUTE,
          resolvedAt: clock.now() - 20 * MINUTE,
        },
      ],
      forgetResolvedBefore: 0,
    });
    await signIn(page, h.url, h.token);
  });

  it("shows its exact times once Tab reaches its row, on its time", async () => {
    const { page } = ui;
    const nav = page.getByRole("navigation").getByRole("link", { name: "Alerts" });
    await nav.click();
    const firing = page.getByRole("table", { name: "Firing" }).getByRole("row").filter({
      hasText: "queue lag (firing)",
    });
    const resolved = page
      .getByRole("table", { name: "Recently resolved" })
      .getByRole("row")
      .filter({ hasText: "queue lag (resolved)" });
    await resolved.waitFor();
    const since = firing.locator("time");
    const [resolvedSince, resolvedAt] = [
      resolved.locator("time").first(),
      resolved.locator("time").last(),
    ];
    expect(await exactShown(since)).toBe(false);
    expect(await exactShown(resolvedAt)).toBe(false);

    // From the navigation, by keyboard: the next stop is the firing alert's time.
    await nav.focus();
    expect((await tabToRow(page, "queue lag (firing)")).tag).toBe("TIME");
    expect(await exactShown(since)).toBe(true);
    expect(await exactShown(resolvedSince)).toBe(false);
    // The alert's value moves on and the table is drawn again: the focus stays on its time.
    await ui.h.hookline.store.saveAlerts({
      holder: "test",
      alerts: [{ ...firingAlert, value: 180 }],
      forgetResolvedBefore: 0,
    });
    await firing.getByText("3 min (threshold 1 min)").waitFor();
    expect(await focused(page)).toMatchObject({ tag: "TIME", row: /queue lag \(firing\)/ });
    expect(await exactShown(since)).toBe(true);
    // One stop per row: the next is the resolved alert's, whose two exact times both show.
    await page.keyboard.press("Tab");
    expect((await focused(page)).row).toContain("queue lag (resolved)");
    expect(await exactShown(since)).toBe(false);
    expect(await exactShown(resolvedSince)).toBe(true);
    expect(await exactShown(resolvedAt)).toBe(true);
    // A time the keyboard stops on breaks none of axe's rules.
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press("Tab");
    expect((await focused(page)).row).not.toContain("queue lag");
    expect(await exactShown(resolvedAt)).toBe(false);
  });
});

describe("the dashboard: exact times outside a table's rows, and the lists' Tab order", () => {
  // Two failures in a row open the circuit, whose probe is far off: a third message waits.
  const ui = useDashboard(BILLING_FAILS);
  let appId: string;
  let billing: string;
  let orders: string;
  let held: string;
  let jobId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    orders = (await h.svix.endpoint.create(appId, { url: rx.url("/orders") })).id;
    // The third message, posted once the circuit is open, waits for the probe.
    ({ billing, held } = await heldForTheProbe(h, rx, appId));
    await h.waitFor(deliveryOf(held, "succeeded", orders));
    jobId = (
      await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
        since: new Date(Date.now() - 60 * MINUTE).toISOString(),
        endpointId: billing,
        startAt: new Date(Date.now() + 60 * MINUTE).toISOString(),
      })
    ).body.id;
    await signIn(page, h.url, h.token);
  });

  const open = async (route: string, drawn: string | RegExp) => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#${route}`);
    await page.getByText(drawn).first().waitFor();
  };

  /** The relative time in the `dd` after the `dt` named `term`. */
  const fact = (term: string) =>
    ui.page.locator(`dt:text-is("${term}") + dd`).locator("time[data-relative]").first();

  it("shows an endpoint's last success and its next probe with their exact times", async () => {
    await open(`/app/${appId}/endpoint/${orders}`, "Last success");
    await fact("Last success").waitFor();
    expect(await exactShown(fact("Last success"))).toBe(true);
    await open(`/app/${appId}/endpoint/${billing}`, /next probe in/);
    expect(await exactShown(fact("Waiting now, of any age"))).toBe(true);
    // Within the sentence's parentheses, after a comma: not in parentheses of its own.
    expect(await ui.page.locator(`dt:text-is("Waiting now, of any age") + dd`).innerText()).toMatch(
      /\(next probe in\s1\sh, at \d+\/\d+\/\d{4}, [^()]+\)\.$/,
    );
  });

  it("shows a delivery's next attempt with its exact time", async () => {
    await open(`/app/${appId}/message/${held}`, /waits for the circuit's probe/);
    const standing = ui.page.getByRole("article").filter({ hasText: "/billing" }).locator("p");
    for (const when of await standing.locator("time").all()) {
      expect(await exactShown(when)).toBe(true);
    }
    // Its next attempt is at the probe: one time, said once.
    expect(await standing.locator("time").count()).toBe(1);
    expect(await standing.innerText()).toMatch(
      /next attempt in\s1\sh\s\(\d+\/\d+\/\d{4}, [^()]+\) · Circuit Open waits for the circuit's probe /,
    );
    expect(await axeViolations(ui.page)).toEqual([]);
  });

  it("shows when a job was started with its exact time", async () => {
    await open(`/jobs/${jobId}`, "Started by");
    expect(await exactShown(ui.page.getByText("Started by").locator("time"))).toBe(true);
  });

  it("adds no stop to the Tab order of a list whose rows have a link", async () => {
    const { page } = ui;
    for (const [route, table] of [
      [`/app/${appId}/messages`, "Newest messages first"],
      [`/app/${appId}/endpoint/${billing}`, "Recent attempts"],
      ["/dlq", "Open records, newest first"],
      ["/jobs", "Newest first"],
    ] as const) {
      await open(route, table);
      const rows = page.getByRole("table", { name: table }).locator("tbody tr");
      await rows.locator("time").first().waitFor();
      expect(await rows.locator("time[tabindex]").count()).toBe(0);
    }
  });
});
