/**
 * The console asks first, in the page, before what sends many requests to a customer's endpoint
 * or cannot be undone: replaying a dead-letter group, starting a bulk replay (saying how many
 * records it would replay now, and where), cancelling a replay job, abandoning a record (naming
 * the endpoint's URL). Each started at the first click, with no word of how many requests would
 * go out. Resolving a record, which can still be replayed after, is not asked about; a bulk
 * replay of a window with no open record says so and starts nothing.
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

describe("operator console: the questions before bulk replays, cancelling and abandoning", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status: 503, body: "maintenance" }),
  });
  let orders: TestEndpoint;
  let billing: TestEndpoint;
  let quiet: TestEndpoint;
  let records: RecordOut[];

  beforeAll(async () => {
    const { h, rx, page } = ui;
    orders = await anEndpoint(h, rx.url("/orders"));
    billing = await anEndpoint(h, rx.url("/billing"));
    quiet = await anEndpoint(h, rx.url("/quiet"));
    records = await deadLetters(h, orders, 3);
    await deadLetters(h, billing, 1);
    await signIn(page, h.url, h.token);
  });

  const jobs = async () =>
    (
      await ui.h.api<{ data: { id: string; selection: Record<string, unknown> }[] }>(
        "GET",
        "/api/v1/dlq/replay",
      )
    ).body.data;

  /** The text of the control that has focus. */
  const focused = () => ui.page.evaluate<string>("document.activeElement?.textContent ?? ''");

  /** The open question's description, as a screen reader reads it after its name. */
  const detail = () =>
    ui.page.evaluate<string>(
      "(() => { const d = document.querySelector('dialog[open]'); return document.getElementById(d.getAttribute('aria-describedby')).textContent; })()",
    );

  /** Waits until the button named `name` is no longer busy: a press meanwhile is ignored. */
  const ready = (name: string | RegExp) =>
    expect
      .poll(() => ui.page.getByRole("button", { name }).first().getAttribute("aria-disabled"))
      .toBeNull();

  it("asks before replaying a group, by its count and URL, and Escape replays nothing", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/ui/#/dlq`);
    const group = page.getByRole("button", {
      name: `Replay group: every exhausted record of ${rx.url("/orders")}`,
    });
    await group.focus();
    await page.keyboard.press("Enter");
    const asked = page.getByRole("dialog", {
      name: `Replay 3 exhausted records to ${rx.url("/orders")}?`,
    });
    await asked.waitFor();
    expect(await detail()).toBe(
      "Every open record of this group, as it stands when the job starts. A bulk replay job " +
        "sends each again, a canary sample first, at the configured rate; a request sent " +
        "cannot be taken back.",
    );
    expect(await asked.getByRole("button").allInnerTexts()).toEqual(["Cancel", "Replay group"]);
    expect(await focused()).toBe("Cancel");
    await page.keyboard.press("Escape");
    await asked.waitFor({ state: "detached" });
    expect(await focused()).toBe("Replay group");
    expect(await jobs()).toEqual([]);
  });

  it("asks before a bulk replay, saying how many records it would replay now and where", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/ui/#/dlq`);
    await page.getByRole("button", { name: "Start bulk replay" }).click();
    let asked = page.getByRole("dialog", { name: "Replay 4 records to 2 endpoints?" });
    await asked.waitFor();
    expect(await detail()).toMatch(
      /^The records open now that were dead-lettered from .+ until now\. A bulk replay job sends each again, a canary sample first, at the configured rate; /,
    );
    await asked.getByRole("button", { name: "Cancel" }).click();
    await asked.waitFor({ state: "detached" });
    expect(await jobs()).toEqual([]);

    await ready("Start bulk replay");
    await page.getByLabel("Endpoint id").fill(billing.endpointId);
    await page.getByLabel("Canary size").fill("0");
    await page.getByLabel("Rate per second").fill("2");
    await page.getByRole("button", { name: "Start bulk replay" }).click();
    asked = page.getByRole("dialog", { name: `Replay 1 record to ${rx.url("/billing")}?` });
    await asked.waitFor();
    expect(await detail()).toContain(
      "sends each again, without a canary, at 2\u00a0per\u00a0second;",
    );
    await asked.getByRole("button", { name: "Start bulk replay" }).click();
    await page.getByRole("heading", { name: /Bulk replay job_/ }).waitFor();
    const started = await jobs();
    expect(started).toHaveLength(1);
    expect(started[0]!.selection).toMatchObject({ endpointId: billing.endpointId });
  });

  it("says there is nothing to replay in a window with no open record, and starts nothing", async () => {
    const { h, page } = ui;
    const before = (await jobs()).length;
    await page.goto(`${h.url}/ui/#/dlq`);
    await page.getByLabel("Endpoint id").fill(quiet.endpointId);
    await page.getByRole("button", { name: "Start bulk replay" }).click();
    await page
      .locator("#toast")
      .getByRole("alert")
      .getByText(
        new RegExp(
          `^No open record was dead-lettered from .+ until now at endpoint ${quiet.endpointId}: there is nothing to replay\\.$`,
        ),
      )
      .waitFor();
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect(await jobs()).toHaveLength(before);
  });

  it("names the form's field when the endpoint it names is refused, as starting the job did", async () => {
    const { h, page } = ui;
    const before = (await jobs()).length;
    await page.goto(`${h.url}/ui/#/dlq`);
    // An endpoint's uid, not its id: refused by the count as the job's start refuses it.
    await page.getByLabel("Endpoint id").fill("orders-hook");
    await page.getByRole("button", { name: "Start bulk replay" }).click();
    const refused = page.locator("#toast").getByRole("alert");
    await refused.getByText(/is not an endpoint id/).waitFor();
    expect(await refused.textContent()).toMatch(/^endpointId: is not an endpoint id \(ep_…\)/);
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect(await jobs()).toHaveLength(before);
  });

  it("asks before cancelling a job, and keeps it when told to", async () => {
    const { h, page } = ui;
    const job = await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
      endpointId: orders.endpointId,
      startAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(job.status).toBe(202);
    const state = async () =>
      (await h.api<{ state: string }>("GET", `/api/v1/dlq/replay/${job.body.id}`)).body.state;
    await page.goto(`${h.url}/ui/#/jobs/${job.body.id}`);
    await page.getByTestId("job-state").getByText("scheduled").waitFor();
    await page.getByRole("button", { name: "Cancel job" }).click();
    let asked = page.getByRole("dialog", { name: `Cancel bulk replay ${job.body.id}?` });
    await asked.waitFor();
    expect(await detail()).toBe(
      "It has not selected its records yet: none of them is replayed. A cancelled job cannot " +
        "be started again: a new bulk replay would be needed.",
    );
    // The safe answer is not called "Cancel" beside "Cancel job".
    expect(await asked.getByRole("button").allInnerTexts()).toEqual(["Keep job", "Cancel job"]);
    await asked.getByRole("button", { name: "Keep job" }).click();
    await asked.waitFor({ state: "detached" });
    expect(await state()).toBe("scheduled");

    await ready("Cancel job");
    await page.getByRole("button", { name: "Cancel job" }).click();
    asked = page.getByRole("dialog", { name: `Cancel bulk replay ${job.body.id}?` });
    await asked.getByRole("button", { name: "Cancel job" }).click();
    await page.getByTestId("job-state").getByText("cancelled").waitFor();
    expect(await state()).toBe("cancelled");
  });

  it("asks before abandoning a record, naming the endpoint's URL, and not before resolving", async () => {
    const { h, rx, page } = ui;
    const [abandoned, resolved] = [records[0]!, records[1]!];
    const stateOf = async (r: RecordOut) =>
      (await h.api<{ state: string }>("GET", `/api/v1/dlq/${r.id}`)).body.state;
    await page.goto(`${h.url}/ui/#/dlq/${abandoned.id}`);
    await page.getByRole("table", { name: "History" }).waitFor();
    await page.getByLabel("Note").fill("customer closed their account");
    await page.getByRole("button", { name: "Abandon" }).click();
    let asked = page.getByRole("dialog", { name: `Abandon ${abandoned.id}?` });
    await asked.waitFor();
    expect(await detail()).toBe(
      `hookline gives up on delivering message ${abandoned.messageId} to ${rx.url("/orders")}: ` +
        "the record cannot be reopened, no bulk replay takes it, and it can be replayed only " +
        "once resolved.",
    );
    await asked.getByRole("button", { name: "Cancel" }).click();
    await asked.waitFor({ state: "detached" });
    expect(await stateOf(abandoned)).toBe("open");

    await ready("Abandon");
    await page.getByRole("button", { name: "Abandon" }).click();
    asked = page.getByRole("dialog", { name: `Abandon ${abandoned.id}?` });
    await asked.getByRole("button", { name: "Abandon" }).click();
    await page.locator("#toast").getByRole("status").getByText("Record abandoned").waitFor();
    expect(await stateOf(abandoned)).toBe("abandoned");

    await page.goto(`${h.url}/ui/#/dlq/${resolved.id}`);
    await page.getByRole("table", { name: "History" }).waitFor();
    await page.getByLabel("Note").fill("sent by hand");
    await page.getByRole("button", { name: "Resolve" }).click();
    await page.locator("#toast").getByRole("status").getByText("Record resolved").waitFor();
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect(await stateOf(resolved)).toBe("resolved");
  });
});
