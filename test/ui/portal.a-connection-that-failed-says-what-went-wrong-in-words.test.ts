/**
 * An attempt that got no HTTP answer showed hookline's error class and Node's error code, as
 * `connection_refused (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:…)` or
 * `tls (DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate)`: words a customer whose endpoint
 * was down, or served a self-signed certificate, had to look up. The result now names what failed
 * in words, the detail kept after it, and says beside it what to check or change, as a redirect's
 * result does. The TLS note said a self-signed certificate is always refused and asked for an
 * authority "browsers trust": an operator's NODE_EXTRA_CA_CERTS lets one through, and a server
 * leaving out its intermediate certificate works in a browser (which fetches it) but not here.
 * A failed host name lookup read "host name not found" whatever failed, also a lookup that got no
 * answer (EAI_AGAIN), where the name may well exist.
 */
import { createServer as createHttpsServer, type Server } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";
import { closedPort } from "../support/receiver.js";
import { receiverCertificate } from "../support/tls.js";

const REFUSED_NOTE =
  "Nothing accepted the connection at this host and port: check that your server is running " +
  "and listening on the URL's port.";
const TLS_NOTE = "a self-signed certificate is refused unless this hookline's operator added it";
const INTERMEDIATES = "with the intermediate certificates sent along";

describe("customer portal: an attempt that got no answer says why in words", () => {
  const ui = useDashboard();
  let https: Server;
  let appId: string;
  let msgId: string;
  let refusedEp: string;
  let tlsEp: string;
  let dnsEp: string;

  beforeAll(async () => {
    const { h, page } = ui;
    // An HTTPS receiver with a self-signed certificate, which hookline does not trust.
    https = createHttpsServer(receiverCertificate, (_req, res) => res.end("ok"));
    await new Promise<void>((r) => https.listen(0, "127.0.0.1", r));
    const { port } = https.address() as { port: number };
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", {
      name: "Acme",
      deliveryPolicy: { retry: { delays: [3600], window: 7200 } },
    });
    appId = app.body.id;
    refusedEp = (
      await h.svix.endpoint.create(appId, { url: `http://127.0.0.1:${await closedPort()}/hook` })
    ).id;
    tlsEp = (await h.svix.endpoint.create(appId, { url: `https://127.0.0.1:${port}/hook` })).id;
    // .invalid is never a name (RFC 2606): the lookup fails whatever resolver the machine has.
    dnsEp = (await h.svix.endpoint.create(appId, { url: "http://hookline-final.invalid/hook" })).id;
    msgId = (await h.svix.message.create(appId, { eventType: "order.paid", payload: { n: 1 } })).id;
    for (const ep of [refusedEp, tlsEp, dnsEp]) {
      await h.waitFor((e) => e.type === "delivery" && e.messageId === msgId && e.endpointId === ep);
    }
    await openPortal(page, h, appId);
  });

  afterAll(async () => {
    await new Promise<void>((r) => https?.close(() => r()));
  });

  it("names the failure and what to check on the message's timeline", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/message/${msgId}`);
    const timeline = page.getByRole("region", { name: "Deliveries" });
    const refused = timeline.getByRole("listitem").filter({ hasText: "ECONNREFUSED" }).first();
    await refused.waitFor({ timeout: 10_000 });
    const refusedLine = await refused.innerText();
    expect(refusedLine).toMatch(/first: connection refused \(ECONNREFUSED/);
    expect(refusedLine).not.toContain("connection_refused");
    expect(refusedLine).toContain(REFUSED_NOTE);

    const tls = timeline.getByRole("listitem").filter({ hasText: "SELF_SIGNED" }).first();
    await tls.waitFor({ timeout: 10_000 });
    const tlsLine = await tls.innerText();
    expect(tlsLine).toMatch(/first: secure connection \(TLS\) failed \(DEPTH_ZERO_SELF_SIGNED/);
    expect(tlsLine).toContain(TLS_NOTE);
    expect(tlsLine).toContain(INTERMEDIATES);
    expect(tlsLine).not.toContain("browsers trust");

    const dns = timeline.getByRole("listitem").filter({ hasText: "getaddrinfo" }).first();
    await dns.waitFor({ timeout: 10_000 });
    const dnsLine = await dns.innerText();
    expect(dnsLine).toMatch(/first: host name lookup failed \(/);
    expect(dnsLine).toContain("EAI_AGAIN in the detail is a lookup that got no answer");
  });

  it("says the same in the endpoint's attempts", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${refusedEp}`);
    const attempts = page.getByRole("table", { name: "Recent attempts" });
    const row = attempts.getByRole("row").nth(1);
    await row.waitFor({ timeout: 10_000 });
    // The third column, "Status".
    expect(await row.getByRole("cell").nth(2).innerText()).toMatch(
      /^connection refused \(ECONNREFUSED/,
    );
    await attempts.getByText("Request and response").first().click();
    await attempts.getByText(REFUSED_NOTE).first().waitFor({ timeout: 10_000 });

    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${tlsEp}`);
    const tlsAttempts = page.getByRole("table", { name: "Recent attempts" });
    await tlsAttempts.getByText("Request and response").first().click({ timeout: 10_000 });
    await tlsAttempts.getByText(TLS_NOTE, { exact: false }).first().waitFor({ timeout: 10_000 });
  });
});
