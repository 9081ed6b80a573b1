/**
 * An unfolded attempt that got no body (a refused connection, a redirect with none) drew "none"
 * and the note under it on one line, as `nonehookline keeps the first 4 KiB of a response.`; the
 * note is now on a line of its own, as the result's note is.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: an attempt with no response body", () => {
  const ui = useDashboard({ receiver: () => ({ status: 503 }) });
  let appId: string;
  let epId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", {
      name: "Acme",
      deliveryPolicy: { retry: { delays: [3600], window: 7200 } },
    });
    appId = app.body.id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    const msg = await h.svix.message.create(appId, { eventType: "order.paid", payload: { n: 1 } });
    await h.waitFor((e) => e.type === "delivery" && e.messageId === msg.id);
    await openPortal(page, h, appId);
  });

  it("says none on a line of its own", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const attempts = page.getByRole("table", { name: "Recent attempts" });
    await attempts.getByText("Request and response").first().click({ timeout: 10_000 });
    const body = attempts.locator("details[open] dt:text-is('Response body') + dd").first();
    const lines = (await body.innerText()).split("\n").map((l) => l.trim());
    expect(lines[0]).toBe("none");
    expect(lines.slice(1).join(" ")).toBe("hookline keeps the first 4 KiB of a response.");
  });
});
