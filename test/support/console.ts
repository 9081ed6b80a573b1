/** For the operator console's tests of an endpoint's attempts. */
import type { Locator } from "playwright-core";
import { expect } from "vitest";
import type { Dashboard } from "./browser.js";
import type { Behaviour } from "./receiver.js";

/** A receiver's answers where every other request fails: 200, 500, 200, 500, … */
export function everyOtherFails(): Behaviour {
  let n = 0;
  return () => (n++ % 2 === 0 ? { status: 200, body: "ok" } : { status: 500, body: "no" });
}

/**
 * On the signed-in console of `ui`, whose receiver answers {@link everyOtherFails}: an endpoint
 * at the receiver's /hooks that tries each message once, four messages sent to it (so two of them
 * end failed), and the endpoint's page open with the four attempts drawn. Resolves with the rows
 * of its "Recent attempts" table.
 */
export async function anEndpointPageWithFourAttempts(ui: Dashboard): Promise<Locator> {
  const { h, rx, page } = ui;
  const app = await h.svix.application.create({ name: "Acme" });
  const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/hooks") });
  await h.api("PUT", `/api/v1/app/${app.id}/endpoint/${ep.id}/delivery-policy`, {
    retry: { preset: "manual" },
  });
  for (let i = 0; i < 4; i++) {
    await h.svix.message.create(app.id, { eventType: "order.paid", payload: { i } });
  }
  await expect.poll(() => rx.on("/hooks").length, { timeout: 15_000 }).toBe(4);

  await page.goto(`${h.url}/ui/#/app/${app.id}/endpoint/${ep.id}`);
  const rows = page.getByRole("table", { name: "Recent attempts" }).locator("tbody tr");
  await rows.nth(3).waitFor();
  return rows;
}
