/**
 * A disabled endpoint's banner says what becomes of a message waiting for it (given up, that is
 * dead-lettered, when its next attempt comes while the endpoint is disabled) and how it goes out
 * once the endpoint is enabled again. It told everyone to "resend those from their messages": the
 * operator, whose console replays them from the dead-letter queue (one record or the endpoint's
 * all at once, as delivery.md says), was not told of it; the customer, whose portal has no
 * dead-letter queue, is pointed at the message's Resend to this endpoint.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, post } from "../support/dlq.js";

describe("a disabled endpoint's banner: how its given-up messages go again", () => {
  // 410 Gone: the message is given up on and the endpoint disabled, with a record in the queue.
  const ui = useDashboard({ receiver: () => ({ status: 410, body: "gone" }) });
  let appId: string;
  let epId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx } = ui;
    ({ appId, endpointId: epId } = await anEndpoint(h, rx.url("/hook")));
    msgId = await post(h, appId, { n: 1 });
    await h.waitFor((e) => e.type === "delivery" && e.messageId === msgId && e.state === "dead");
  });

  it("in the console, leads to the endpoint's records in the dead-letter queue", async () => {
    const { h, page } = ui;
    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#/app/${appId}/endpoint/${epId}`);
    const banner = page.getByTestId("disabled-banner");
    await banner.waitFor({ timeout: 15_000 });
    expect(await banner.innerText()).toContain(
      "A message waiting for it is given up when its next attempt comes while the endpoint is " +
        "disabled, and dead-lettered; once it is enabled, replay those from the dead-letter " +
        "queue, or resend one from its message. Those still waiting when it is enabled again " +
        "go as planned.",
    );
    await banner.getByRole("link", { name: "the dead-letter queue" }).click();
    await page.waitForURL(`**/ui/#/dlq?endpoint=${epId}`);
    expect(await page.getByTestId("dlq-filter").innerText()).toContain(epId);
    const rows = page
      .getByRole("table", { name: "Open records, newest first" })
      .locator("tbody tr");
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(1);
  });

  it("in the portal, which has no dead-letter queue, points at Resend on the message", async () => {
    const { h, page } = ui;
    await openPortal(page, h, appId);
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const banner = page.getByTestId("disabled-banner");
    await banner.waitFor({ timeout: 15_000 });
    const text = await banner.innerText();
    expect(text).toContain(
      "A message waiting for it is given up when its next attempt comes while the endpoint is " +
        "disabled; once it is enabled, send each again with Resend to this endpoint on its " +
        "message. Those still waiting when it is enabled again go as planned.",
    );
    expect(text).not.toContain("dead-letter");
    expect(await banner.getByRole("link").count()).toBe(0);
  });
});
