/**
 * When hookline cannot be reached, the page says so in words instead of the browser's raw errors:
 * a reverse proxy's HTML error page used to show as "Unexpected token '<' … is not valid JSON",
 * and no answer at all as "Failed to fetch". It is an error, announced as one (the toast's alert
 * region, not its polite status), and once: each update that fails alike leaves the words as they
 * are, where it wrote them again every 2 s and a screen reader could read them again each time.
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";

/** A reverse proxy in front of hookline that can answer 502 with an HTML page, as nginx does. */
async function reverseProxy(target: string) {
  const state = { badGateway: false, answered502: 0 };
  const server: Server = createServer((req, res) => {
    if (state.badGateway) {
      state.answered502++;
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html><body><h1>502 Bad Gateway</h1></body></html>");
      return;
    }
    const up = request(new URL(req.url ?? "/", target), {
      method: req.method,
      headers: req.headers,
    });
    up.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    state,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe("customer portal: hookline out of reach", () => {
  const ui = useDashboard();
  let proxy: Awaited<ReturnType<typeof reverseProxy>> | undefined;
  afterAll(async () => proxy?.close());

  it("says the proxy's error and then that hookline does not answer", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    await h.svix.endpoint.create(app.id, { url: rx.url("/hook") });
    const link = await h.svix.authentication.appPortalAccess(app.id, { expiry: 3600 });
    proxy = await reverseProxy(h.url);
    await page.goto(`${proxy.url}${new URL(link.url).pathname}${new URL(link.url).hash}`);
    await page.getByRole("heading", { name: "Endpoints of Acme" }).waitFor();

    const toast = page.locator("#toast").getByRole("alert");
    proxy.state.badGateway = true;
    await toast.getByText(/Live update failed/).waitFor({ timeout: 10_000 });
    expect(await toast.innerText()).toBe("Live update failed: HTTP 502 Bad Gateway");
    expect(await page.locator("#toast").getByRole("status").textContent()).toBe("");

    // The updates after it fail alike: the toast's regions are left as they are.
    await page.evaluate(`(() => {
      window.toastChanges = 0;
      new MutationObserver((changes) => (window.toastChanges += changes.length)).observe(
        document.getElementById("toast"),
        { childList: true, characterData: true, subtree: true, attributes: true },
      );
    })()`);
    const seen = proxy.state.answered502;
    // An update of the endpoints page reads two things: seven answers are at least three updates.
    await expect
      .poll(() => proxy!.state.answered502, { timeout: 15_000 })
      .toBeGreaterThan(seen + 6);
    await toast.getByText(/Live update failed/).waitFor();
    expect(await page.evaluate("window.toastChanges")).toBe(0);

    await proxy.close();
    await toast.getByText(/did not answer/).waitFor({ timeout: 10_000 });
    expect(await toast.innerText()).toBe(
      "Live update failed: hookline did not answer (is it running, and is the network up?)",
    );
  });
});
