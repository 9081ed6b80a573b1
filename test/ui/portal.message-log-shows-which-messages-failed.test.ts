/**
 * The message log says, per message, how its deliveries stand, so a customer looking for "which
 * of my webhooks failed?" sees it in the list instead of opening each message: `fail` for one
 * that an endpoint refused, `success` for one every endpoint took, also at phone width.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { deliveryOf } from "../support/hookline.js";

describe("customer portal: the message log's delivery status", () => {
  // `/picky` refuses (400: permanent, dead at once) a payload that asks for it.
  const ui = useDashboard({
    receiver: (req) =>
      req.path === "/picky" && JSON.parse(req.body.toString()).refuse
        ? { status: 400, body: "no" }
        : { status: 200, body: "ok" },
  });
  let appId: string;
  let delivered: string;
  let failed: string;
  let nowhere: string;

  beforeAll(async () => {
    const { h, rx } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    const eps = [];
    for (const path of ["/fine", "/picky"])
      eps.push(
        await h.svix.endpoint.create(appId, { url: rx.url(path), filterTypes: ["order.paid"] }),
      );
    const send = async (eventType: string, payload: Record<string, unknown>) =>
      (await h.svix.message.create(appId, { eventType, payload })).id;
    delivered = await send("order.paid", {});
    failed = await send("order.paid", { refuse: true });
    nowhere = await send("order.cancelled", {});
    for (const ep of eps) await h.waitFor(deliveryOf(delivered, "succeeded", ep.id));
    await h.waitFor(deliveryOf(failed, "succeeded", eps[0]!.id));
    await h.waitFor(deliveryOf(failed, "dead", eps[1]!.id));
  });

  /** The Deliveries cell of a message's row. */
  const deliveriesOf = (msgId: string) =>
    ui.page
      .getByRole("table", { name: "Newest messages first" })
      .locator("tbody tr")
      .filter({ has: ui.page.getByRole("link", { name: msgId }) })
      .locator('td[data-label="Deliveries"]');

  it("shows a failed message's badge and a delivered one's in the log", async () => {
    const { h, page } = ui;
    await openPortal(page, h, appId);
    await page.getByRole("navigation").getByRole("link", { name: "Messages" }).click();
    await deliveriesOf(failed).getByText("fail", { exact: true }).waitFor({ timeout: 15_000 });
    expect(await deliveriesOf(failed).innerText()).toBe("fail (1 success, 1 fail)");
    expect(await deliveriesOf(failed).locator(".badge").getAttribute("class")).toContain(
      "status-fail",
    );
    expect(await deliveriesOf(delivered).innerText()).toBe("success");
    expect(await deliveriesOf(nowhere).innerText()).toBe("no endpoints");
  });

  it("keeps the status on screen, named, at phone width", async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 390, height: 844 });
    const cell = deliveriesOf(failed);
    await cell.getByText("fail", { exact: true }).waitFor({ timeout: 15_000 });
    const box = (await cell.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    // Run in the page, as text: the tests are compiled without the DOM's types.
    const label = await page.evaluate<string>(`getComputedStyle(
      document.querySelector('a[data-key="msg-${failed}"]').closest("tr")
        .querySelector('td[data-label="Deliveries"]'), "::before").content`);
    expect(label).toBe('"Deliveries"');
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
      390,
    );
  });
});
