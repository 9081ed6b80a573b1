/**
 * A delivery waiting for a retry at an endpoint that is then disabled is given up (dead-lettered,
 * "endpoint disabled") when its retry comes, unless the endpoint is enabled again first. The
 * message's page said "1 attempt failed, retrying: next attempt in 10 min", the endpoint's banner
 * that the waiting events "are not sent" (those still waiting when it is enabled go as planned),
 * and its counts that they are "not sent until it is enabled again": a customer who disabled an
 * endpoint for maintenance expected the retries to resume, and found them given up.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { firstDeliveryStanding, openPortal, useDashboard } from "../support/browser.js";
import { anEndpoint } from "../support/dlq.js";

describe("customer portal: a delivery waiting at an endpoint disabled meanwhile", () => {
  const ui = useDashboard({ receiver: () => ({ status: 503, body: "down" }) });
  let appId: string;
  let epId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    ({ appId, endpointId: epId } = await anEndpoint(h, rx.url("/hook"), {
      retry: { delays: [600], window: 7200 },
    }));
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    await h.waitFor((e) => e.type === "delivery" && e.messageId === msgId && e.state === "pending");
    await h.svix.endpoint.patch(appId, epId, { disabled: true });
    await openPortal(page, h, appId);
  });

  it("says on the message that it is given up when its retry comes, unless enabled first", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const standing = firstDeliveryStanding(page);
    await standing.getByText("Endpoint disabled").waitFor({ timeout: 15_000 });
    const text = await standing.innerText();
    expect(text).toMatch(
      /^pending · 1\u00a0attempt failed: next attempt in\s(9|10)\smin\s\(\d+\/\d+\/\d{4}, [^()]+\) if the endpoint is enabled again by then; if not, hookline gives it up then · /,
    );
    expect(text).not.toContain("retrying");
  });

  it("says so on the endpoint's banner and counts", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const banner = page.getByTestId("disabled-banner");
    await banner.waitFor({ timeout: 15_000 });
    expect(await banner.innerText()).toContain(
      "A message waiting for it is given up when its next attempt comes while the endpoint is " +
        "disabled; once it is enabled, send each again with Resend to this endpoint on its " +
        "message. Those still waiting when it is enabled again go as planned.",
    );
    const counts = page.getByTestId("message-counts");
    const waiting = counts.locator("dt", { hasText: "Waiting now, of any age" }).locator("+ dd");
    await expect
      .poll(() => waiting.innerText(), { timeout: 15_000 })
      .toBe(
        "1 · Endpoint disabled: each is given up when its next attempt comes while the endpoint " +
          "is disabled, and goes as planned if it is enabled again first.",
      );
  });
});
