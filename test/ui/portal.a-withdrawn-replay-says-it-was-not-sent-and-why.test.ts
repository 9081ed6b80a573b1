/**
 * A message's delivery was attempted three times and dead-lettered; an operator replayed it, and
 * its endpoint was disabled while the replay waited, so the replay ended without a request
 * (withdrawn). The portal's message page read "hookline stopped trying: it was never sent", of a
 * delivery its own timeline showed sent three times: it looked at the replay's attempts alone,
 * none, and the replay's own result was only in the record's history, which a portal link cannot
 * read. The API now gives that replay's reason, and the page says the replay was not sent and why,
 * and what the last attempt before it got.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { anEndpoint, post, type RecordOut } from "../support/dlq.js";
import { holdingReceiver, untilRecordIs } from "../support/held-replay.js";
import { deliveryOf } from "../support/hookline.js";

describe("customer portal: a replay withdrawn while its endpoint was disabled", () => {
  const ui = useDashboard();
  let appId: string;
  let msgId: string;
  let rx: Awaited<ReturnType<typeof holdingReceiver>> | undefined;
  afterAll(() => rx?.close());

  beforeAll(async () => {
    const { h, page } = ui;
    const receiver = await holdingReceiver();
    rx = receiver;
    // One request at a time: the replay waits in the engine behind a request the receiver holds.
    const ep = await anEndpoint(h, receiver.url, {
      retry: { delays: [1, 1], window: 600 },
      concurrencyLimit: 1,
    });
    appId = ep.appId;
    msgId = await post(h, appId, { order: 1 });
    await h.waitFor(deliveryOf(msgId, "dead", ep.endpointId), 15_000);
    const record = (await h.api<{ data: RecordOut[] }>("GET", `/api/v1/dlq?message_id=${msgId}`))
      .body.data[0]!;

    receiver.hold();
    await post(h, appId, { after: "the outage" });
    await receiver.arrived();
    const replay = h.api("POST", `/api/v1/dlq/${record.id}/replay`, {});
    const stateOf = async () =>
      (await h.api<RecordOut>("GET", `/api/v1/dlq/${record.id}`)).body.state;
    await untilRecordIs(stateOf, "replaying");
    await h.svix.endpoint.patch(appId, ep.endpointId, { disabled: true });
    receiver.answerHeld(503);
    expect((await replay).body).toMatchObject({ result: "withdrawn" });
    await untilRecordIs(stateOf, "open");
    // The customer enables it again: the card has no disabled note left to explain anything.
    await h.svix.endpoint.patch(appId, ep.endpointId, { disabled: false });
    await openPortal(page, h, appId);
  }, 30_000);

  it("says the replay was not sent and why, not that the message never was", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const card = page.getByRole("region", { name: "Deliveries" }).getByRole("article").first();
    const standing = card.locator("p").first();
    await standing.getByText("hookline stopped trying").waitFor({ timeout: 15_000 });
    expect(await standing.innerText()).toBe(
      "fail · hookline stopped trying: its replay from the dead-letter queue was not sent " +
        "(endpoint disabled); the last attempt before it: HTTP 503. Nothing more is sent " +
        "unless it is resent. Resend to this endpoint",
    );
    // The three attempts the page's timeline lists are the ones it speaks of.
    expect(await card.locator("ol > li").count()).toBe(3);
  });
});
