/**
 * A customer debugging a failing endpoint sees, for each attempt, the whole response body hookline
 * kept (not only its first 120 characters), the transport error's detail (which address refused,
 * which certificate failed), and the request as sent: the webhook-id and webhook-timestamp their
 * receiver got, and what the signature covers. Opened details stay open while new attempts arrive.
 */
import { createServer } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

// A validation error of the kind receivers answer with: the useful part comes last.
const LONG_BODY = `{"error":"validation failed","fields":[${Array.from(
  { length: 20 },
  (_, i) => `{"field":"items.${i}.sku","problem":"unknown"}`,
).join(",")}],"hint":"TAIL-MARKER customer.tier is not accepted"}`;

describe("customer portal: what an attempt sent and got back", () => {
  const ui = useDashboard({ receiver: () => ({ status: 422, body: LONG_BODY }) });
  let appId: string;
  let msgId: string;
  let goodEp: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", {
      name: "Acme",
      deliveryPolicy: { retry: { delays: [3600], window: 7200 } },
    });
    appId = app.body.id;
    goodEp = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    const refused = await h.svix.endpoint.create(appId, {
      url: `http://127.0.0.1:${await closedPort()}/hook`,
    });
    const msg = await h.svix.message.create(appId, { eventType: "order.paid", payload: { n: 1 } });
    msgId = msg.id;
    for (const ep of [goodEp, refused.id]) {
      await h.waitFor((e) => e.type === "delivery" && e.messageId === msgId && e.endpointId === ep);
    }
    await openPortal(page, h, appId);
  });

  it("shows the whole response, the error's detail and the request headers on the message", async () => {
    const { h, rx, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const timeline = page.getByRole("region", { name: "Deliveries" });
    // The error's detail is on the attempt's line, not only in its folded details.
    const refusedAttempt = timeline
      .getByRole("listitem")
      .filter({ hasText: /connection refused \(ECONNREFUSED/ })
      .first();
    await refusedAttempt.waitFor({ timeout: 10_000 });
    expect(await refusedAttempt.innerText()).toMatch(/connection refused \(ECONNREFUSED/);

    const good = timeline.getByRole("article").filter({ hasText: rx.url("/hook") });
    await good.getByText("Request and response").first().click();
    await good.getByText(/TAIL-MARKER customer\.tier is not accepted/).waitFor({ timeout: 15_000 });
    const sent = rx.on("/hook")[0]!;
    const details = good.locator("details[open]");
    expect(await details.innerText()).toContain(`webhook-id: ${sent.headers["webhook-id"]}`);
    expect(await details.innerText()).toContain(
      `webhook-timestamp: ${sent.headers["webhook-timestamp"]}`,
    );

    // A new attempt redraws the timeline; the details the customer opened stay open.
    await good.getByRole("button", { name: "Resend to this endpoint" }).click();
    await good.getByRole("listitem").nth(1).waitFor();
    expect(await good.locator("details[open]").count()).toBe(1);
    await good
      .getByText(/TAIL-MARKER/)
      .first()
      .waitFor({ state: "visible", timeout: 5_000 });
  });

  it("shows the same on the endpoint's recent attempts", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${goodEp}`);
    const attempts = page.getByRole("table", { name: "Recent attempts" });
    await attempts.getByText("Request and response").first().click({ timeout: 10_000 });
    await attempts
      .getByText(/TAIL-MARKER/)
      .first()
      .waitFor({ timeout: 15_000 });
  });
});
