/**
 * "Next attempt in 1 h", "since 2 min ago": relative times follow the clock while the page is open,
 * even when nothing else on it changes. They used to be worked out only when a region's data
 * changed, so a quiet page kept saying "in 7 s" long after the attempt was due.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: relative times on a quiet page", () => {
  const ui = useDashboard({ receiver: () => ({ status: 500, body: "broken" }) });

  it("counts down to the next attempt and up from the circuit's last change", async () => {
    const { h, rx, page } = ui;
    // One retry an hour after the first attempt: nothing happens on the page meanwhile.
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", {
      name: "Acme",
      deliveryPolicy: { retry: { delays: [3600], window: 7200 } },
    });
    const appId = app.body.id;
    const ep = await h.svix.endpoint.create(appId, { url: rx.url("/hook") });
    const msg = await h.svix.message.create(appId, { eventType: "order.paid", payload: {} });
    await h.waitFor(
      (e) => e.type === "delivery" && e.messageId === msg.id && e.state === "pending",
    );

    // The browser's clock is the test's: moving it on is "time passing" for the page alone.
    await page.clock.install();
    await openPortal(page, h, appId);
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msg.id}`);
    const timeline = page.getByRole("region", { name: "Deliveries" });
    await timeline.getByText(/next attempt in\s(60\smin|1\sh)/).waitFor();

    await page.clock.fastForward("40:00");
    await timeline.getByText(/next attempt in\s(19|20)\smin/).waitFor({ timeout: 10_000 });

    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${ep.id}`);
    const state = page.getByRole("region", { name: "Endpoint state" });
    await state.getByText(/Circuit Closed/).waitFor();
    expect(await state.innerText()).toMatch(/40\smin\sago/);
    await page.clock.fastForward("20:00");
    await state.getByText(/1\sh\sago/).waitFor({ timeout: 10_000 });
  });
});
