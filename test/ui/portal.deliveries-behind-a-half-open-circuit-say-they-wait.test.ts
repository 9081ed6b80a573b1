/**
 * Once a probe gets through, a half-open circuit lets two requests out at a time until enough
 * succeed. The deliveries the probe had held back, all due at once, were claimed and kept in the
 * engine's hands meanwhile, and the portal said each was being sent: the messages list, a
 * message's page and the endpoint's counts showed "sending" / in flight for all of them, with
 * two requests out. Those not sent now say they wait, and why: the circuit is half-open.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstDeliveryStanding, openPortal, screenshot, useDashboard } from "../support/browser.js";
import {
  deliveriesBehindAHalfOpenCircuit,
  OPENS_AT_ONE_FAILURE,
  probedThenHeld,
} from "../support/circuit.js";

let answerTrickle: () => void = () => {};
const trickleHeld = new Promise<void>((r) => (answerTrickle = r));

describe("customer portal: deliveries behind a half-open circuit", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: OPENS_AT_ONE_FAILURE } },
    receiver: probedThenHeld(trickleHeld),
  });
  let appId: string;
  let epId: string;
  let msgIds: string[];
  let out: Set<string>;
  let probed: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    ({ appId, epId, msgIds, probed } = await deliveriesBehindAHalfOpenCircuit(h, rx));
    out = new Set(rx.requests.slice(2).map((r) => r.headers["webhook-id"]!));
    await openPortal(page, h, appId);
  });
  // Before hookline stops, which would otherwise wait for the held requests.
  afterAll(() => answerTrickle());

  it("lists as sending only the messages whose requests are out", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/messages`);
    const list = page.getByRole("table", { name: "Newest messages first" });
    await list.getByRole("row").nth(msgIds.length).waitFor();
    for (const id of msgIds) {
      const row = list.getByRole("row").filter({ hasText: id });
      const expected = out.has(id) ? "sending" : id === probed ? "success" : "pending";
      expect({
        id,
        deliveries: (await row.innerText()).match(/success|pending|sending/)?.[0],
      }).toEqual({
        id,
        deliveries: expected,
      });
    }
  });

  it("says on a waiting message that it waits behind the half-open circuit", async () => {
    const { h, page } = ui;
    const waiting = msgIds.find((id) => !out.has(id) && id !== probed)!;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${waiting}`);
    const standing = firstDeliveryStanding(page);
    await standing.getByText("Circuit Half-open").waitFor({ timeout: 15_000 });
    expect(await standing.innerText()).toMatch(/^pending · .*Circuit Half-open waits its turn/);
    await screenshot(page, "message-behind-a-half-open-circuit");
  });

  it("counts on the endpoint two in flight and the rest waiting", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const list = page
      .getByRole("region", { name: "Messages of the last 24 hours" })
      .getByTestId("message-counts");
    await list.waitFor();
    const terms = await list.locator("dt").allInnerTexts();
    const values = await list.locator("dd").allInnerTexts();
    const counts = Object.fromEntries(terms.map((term, i) => [term, values[i] ?? ""]));
    expect(counts).toMatchObject({ Waiting: "6", "In flight": "2", Delivered: "1" });
    expect(counts["Waiting now, of any age"]).toMatch(/^6 · Circuit Half-open/);
  });
});
