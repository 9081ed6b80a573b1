/**
 * What holds a customer's deliveries back is said where they look: a message's pending delivery
 * to an endpoint whose circuit is open says so (it waits for the probe, not for its retry), and a
 * disabled endpoint's page says that it is sent nothing, instead of announcing a next probe that
 * never comes (a disabled endpoint's waiting deliveries are dead-lettered, not probed).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: what holds deliveries back", () => {
  const ui = useDashboard({
    // One failure opens the circuit; its probe is far off, so the delivery waits for it.
    hookline: { overrides: { breaker: { consecutiveFailures: 1, probeDelayMs: 30 * 60_000 } } },
    receiver: () => ({ status: 500, body: "down" }),
  });
  let appId: string;
  let epId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", {
      name: "Acme",
      deliveryPolicy: { retry: { delays: [5], window: 7200 } },
    });
    appId = app.body.id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: {} })).id;
    await h.waitFor((e) => e.type === "circuit" && e.endpointId === epId);
    await h.waitFor((e) => e.type === "delivery" && e.messageId === msgId && e.state === "pending");
    await openPortal(page, h, appId);
  });

  it("says on the message that the delivery waits for the open circuit's probe", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const delivery = page.getByRole("region", { name: "Deliveries" }).getByRole("article");
    await delivery.getByText("pending").waitFor();
    await delivery.getByText(/waits for the circuit's probe/).waitFor({ timeout: 15_000 });
    expect(await delivery.innerText()).toMatch(/Circuit Open/);
  });

  it("says a disabled endpoint is sent nothing, and no next probe", async () => {
    const { h, page } = ui;
    await h.svix.endpoint.patch(appId, epId, { disabled: true });
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const state = page.getByRole("region", { name: "Endpoint state" });
    await state
      .getByText(/disabled/i)
      .first()
      .waitFor();
    await state.getByText(/sends it nothing/).waitFor({ timeout: 15_000 });
    expect(await state.innerText()).not.toMatch(/Next probe/);
  });
});
