/**
 * A delivery given up unsent: its endpoint was disabled while a retry waited, and enabled again
 * later. The message's page told the customer "hookline stopped trying: no retry was left after
 * 1 attempt", of a delivery whose ladder had two retries more, as if hookline had given up on its
 * own. It now says why as the delivery's dead-letter record does: the endpoint was disabled.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { firstDeliveryStanding, openPortal, useDashboard } from "../support/browser.js";
import { anEndpoint } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";

describe("customer portal: a delivery given up while its endpoint was disabled", () => {
  const ui = useDashboard({ receiver: () => ({ status: 503, body: "down" }) });
  let appId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/hook"), {
      retry: { delays: [3, 600, 600], window: 7200 },
    });
    appId = ep.appId;
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    await h.waitFor(deliveryOf(msgId, "pending", ep.endpointId));
    await h.svix.endpoint.patch(appId, ep.endpointId, { disabled: true });
    await h.waitFor(deliveryOf(msgId, "dead", ep.endpointId), 10_000);
    await h.svix.endpoint.patch(appId, ep.endpointId, { disabled: false });
    await openPortal(page, h, appId);
  });

  it("says the endpoint was disabled, not that no retry was left", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const standing = firstDeliveryStanding(page);
    await standing.getByText("hookline stopped trying").waitFor({ timeout: 15_000 });
    expect(await standing.innerText()).toBe(
      "fail · hookline stopped trying: endpoint disabled. Nothing more is sent unless it is " +
        "resent. Resend to this endpoint",
    );
  });
});
