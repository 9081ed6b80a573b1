/**
 * hookline does not follow redirects, so an endpoint set up with http:// for https:// fails with
 * a 301 on every delivery. The customer saw "HTTP 301" and "Moved Permanently", and had to guess
 * the URL their receiver wanted; the redirect's target is now shown with the status. Nor did the
 * portal say that hookline does not follow it, so a customer whose receiver moved waited for the
 * retries to get through; it now says so beside the result, and that the endpoint's URL is to change.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

const TARGET = "https://hooks.example.com/orders/";
const NOT_FOLLOWED =
  "hookline does not follow redirects: if the endpoint has moved, change its URL.";

describe("customer portal: a redirect's target", () => {
  const ui = useDashboard({
    receiver: () => ({ status: 301, headers: { location: TARGET }, body: "Moved Permanently" }),
  });
  let appId: string;
  let msgId: string;
  let epId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", {
      name: "Acme",
      deliveryPolicy: { retry: { delays: [3600], window: 7200 } },
    });
    appId = app.body.id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/orders") })).id;
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: { n: 1 } })).id;
    await h.waitFor((e) => e.type === "delivery" && e.messageId === msgId);
    await openPortal(page, h, appId);
  });

  it("is on the attempt's line in the message's timeline", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const line = page
      .getByRole("region", { name: "Deliveries" })
      .getByRole("listitem")
      .filter({ hasText: "HTTP 301" })
      .first();
    await line.waitFor({ timeout: 10_000 });
    expect(await line.innerText()).toContain(`first: HTTP 301 (Location: ${TARGET})`);
    expect(await line.innerText()).toContain(NOT_FOLLOWED);
  });

  it("is the result in the endpoint's recent attempts", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const attempts = page.getByRole("table", { name: "Recent attempts" });
    await attempts.getByText("Request and response").first().click({ timeout: 10_000 });
    await attempts.getByText(`HTTP 301 (Location: ${TARGET})`).first().waitFor({ timeout: 10_000 });
    await attempts.getByText(NOT_FOLLOWED).first().waitFor({ timeout: 10_000 });
  });

  it("says it is not followed in the status of the endpoint's recent attempts", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const row = page.getByRole("table", { name: "Recent attempts" }).getByRole("row").nth(1);
    await row.waitFor({ timeout: 10_000 });
    // The third column, "Status".
    expect((await row.getByRole("cell").nth(2).innerText()).trim()).toBe("301 (not followed)");
  });
});
