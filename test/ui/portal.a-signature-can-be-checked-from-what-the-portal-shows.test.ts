/**
 * A customer whose receiver rejects hookline's signatures checks one by hand from what the portal
 * shows: the endpoint's secret, and on the message the request's webhook-id and webhook-timestamp
 * and the payload as it was sent. The payload is shown indented to be read; an HMAC over that
 * text never matches, so the exact bytes the signature covers are shown as well.
 */
import { createHmac } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

describe("customer portal: checking a signature by hand", () => {
  const ui = useDashboard();
  let appId: string;
  let epId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    const payload = { order: "ord_1", note: "שלום 😀", items: [1, 2] };
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload })).id;
    await h.waitFor(deliveryOf(msgId, "succeeded", epId));
    await openPortal(page, h, appId);
  });

  it("computes the signature the receiver got from the secret, the headers and the payload as sent", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    await page.getByRole("button", { name: "Reveal secret" }).click();
    const secret = page.locator("output.secret");
    await secret.getByText(/^whsec_/).waitFor();
    const key = Buffer.from((await secret.innerText()).slice("whsec_".length), "base64");

    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    await page.getByText("As sent: the exact bytes each signature covers").click();
    const body = await page.getByLabel("Payload as sent").innerText();
    const timeline = page.getByRole("region", { name: "Deliveries" });
    await timeline.getByText("Request and response").first().click({ timeout: 10_000 });
    const headers = await timeline.getByLabel("Request headers").innerText();
    const id = /^webhook-id: (.+)$/m.exec(headers)![1]!;
    const timestamp = /^webhook-timestamp: (.+)$/m.exec(headers)![1]!;

    const mac = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
    const sent = rx.on("/hook")[0]!;
    expect(body).toBe(sent.body.toString("utf8"));
    expect(sent.headers["webhook-signature"]!.split(" ")).toContain(`v1,${mac}`);
  });
});
