/**
 * A screen reader announces an alert each time one is drawn. The circuit banner (an alert) and the
 * disabled endpoint's (a status) were drawn again with the endpoint's state below them whenever
 * any of it changed (its in-flight count, its last success, an edit), so a customer watching an
 * endpoint with an open circuit heard "Deliveries to this endpoint are paused…" again and again
 * while nothing about the circuit had changed. The banner is now drawn only when what it says
 * changes.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: the circuit banner and screen readers", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: { consecutiveFailures: 2, probeDelayMs: 60 * 60_000 } } },
    receiver: () => ({ status: 500, body: "down" }),
  });
  let appId: string;
  let epId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    for (let i = 0; i < 2; i++) {
      const msg = await h.svix.message.create(appId, { eventType: "order.paid", payload: { i } });
      await h.waitFor((e) => e.type === "delivery" && e.messageId === msg.id && e.attempt !== null);
    }
    await openPortal(page, h, appId);
  });

  /** Counts from now on each alert or status drawn (an element inserted that is or holds one). */
  const countDrawn = () =>
    ui.page.evaluate(`{
      window.drawn = [];
      new MutationObserver((changes) => {
        for (const change of changes)
          for (const node of change.addedNodes)
            if (node instanceof Element) {
              const live = node.matches("[role=alert], [role=status]")
                ? node
                : node.querySelector("[role=alert], [role=status]");
              if (live) window.drawn.push(live.textContent.slice(0, 60));
            }
      }).observe(document.body, { childList: true, subtree: true });
    }`);
  const drawn = () => ui.page.evaluate<string[]>("window.drawn");

  it("is not drawn again when only the endpoint's other facts change", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const state = page.getByRole("region", { name: "Endpoint state" });
    await state.getByText("Deliveries to this endpoint are paused").waitFor();
    await countDrawn();
    // The endpoint's event types change (through the API, as another tab would): its state is
    // drawn again with them, the circuit is as it was.
    await h.svix.endpoint.patch(appId, epId, { filterTypes: ["order.paid"] });
    await state.getByText("order.paid", { exact: true }).waitFor();
    expect(await drawn()).toEqual([]);
    expect(await state.getByRole("alert").innerText()).toMatch(/paused/);
  });

  it("is drawn, once, when what it says changes", async () => {
    const { h, page } = ui;
    await h.svix.endpoint.patch(appId, epId, { disabled: true });
    const state = page.getByRole("region", { name: "Endpoint state" });
    await state.getByText(/sends it nothing/).waitFor();
    expect(await drawn()).toEqual([expect.stringMatching(/^This endpoint is disabled/)]);
  });
});
