/**
 * A customer seeing "HTTP 400 → given up, not retried" could not tell why 400 and not 409: the
 * endpoint's page named no permanent status codes. It now says which answers hookline gives up on
 * at once, from the policy in force (the endpoint's, the application's, or hookline's default
 * set), and 410, which is always among them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: the status codes an endpoint does not retry", () => {
  const ui = useDashboard({ receiver: () => ({ status: 200, body: "ok" }) });
  let appId: string;

  beforeAll(async () => {
    const { h, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    await openPortal(page, h, appId);
  });

  const statement = async (epId: string): Promise<string> => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const line = page.getByText(/^Not retried:/);
    await line.waitFor({ timeout: 10_000 });
    return line.innerText();
  };

  it("names hookline's default set when no policy sets one", async () => {
    const { h, rx } = ui;
    const ep = await h.svix.endpoint.create(appId, { url: rx.url("/default") });
    expect(await statement(ep.id)).toBe(
      "Not retried: HTTP 400, 404, 405, 410, 413, 415 and 422 (hookline's default set). " +
        "hookline gives up on such an answer at once; 410 also disables the endpoint.",
    );
  });

  it("names the endpoint's own set, with 410 always in it", async () => {
    const { h, rx } = ui;
    const ep = await h.api<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, {
      url: rx.url("/own"),
      deliveryPolicy: { permanentStatuses: [422, 409] },
    });
    expect(await statement(ep.body.id)).toBe(
      "Not retried: HTTP 409, 410 and 422 (set by the endpoint policy). " +
        "hookline gives up on such an answer at once; 410 also disables the endpoint.",
    );
  });
});
