/**
 * A product embedding the customer portal in a sandboxed iframe, as products commonly do
 * (`sandbox="allow-scripts allow-same-origin allow-forms"`, without `allow-modals`): Rotate secret
 * and Delete endpoint asked their question with the browser's `confirm()`, which such a frame
 * answers "no" at once without showing anything, so both did nothing and said nothing. The
 * questions are now asked in the page, and every action of the portal works in that frame.
 */
import { createServer, type Server } from "node:http";
import type { FrameLocator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";

/** The sandbox docs/dashboard.md says the portal needs: no `allow-modals`, no `allow-popups`. */
const SANDBOX = "allow-scripts allow-same-origin allow-forms";

describe("customer portal: embedded in a sandboxed iframe", () => {
  const ui = useDashboard();
  let product: Server;
  let appId: string;
  let epId: string;
  let frame: FrameLocator;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    const link = await h.svix.authentication.appPortalAccess(appId, { expiry: 3600 });
    // The product's own page, on another origin (another port), embedding the link.
    const html =
      '<!doctype html><html lang="en"><title>Acme settings</title><h1>Webhooks</h1>' +
      `<iframe title="Webhooks" sandbox="${SANDBOX}" src="${link.url}"` +
      ' style="width: 100%; height: 800px"></iframe></html>';
    product = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(html);
    });
    await new Promise<void>((r) => product.listen(0, "127.0.0.1", () => r()));
    const { port } = product.address() as { port: number };
    await page.goto(`http://127.0.0.1:${port}/`);
    frame = page.frameLocator("iframe");
    await frame.getByRole("heading", { name: "Endpoints of Acme" }).waitFor();
  });

  afterAll(async () => {
    await new Promise<void>((r) => (product ? product.close(() => r()) : r()));
  });

  const said = (text: string | RegExp) => frame.locator("#toast").getByText(text).waitFor();

  it("rotates the secret once asked and answered", async () => {
    const { h, rx } = ui;
    await frame.getByRole("link", { name: rx.url("/hook") }).click();
    await frame.getByRole("heading", { level: 1, name: rx.url("/hook") }).waitFor();
    await frame.getByRole("button", { name: "Rotate secret" }).click();
    const question = frame.getByRole("dialog", { name: /^Rotate the signing secret\?/ });
    await question.getByRole("button", { name: "Rotate secret" }).click();
    await said("Secret rotated");
    const read = await h.api<{ key: string; previousSecrets: unknown[] }>(
      "GET",
      `/api/v1/app/${appId}/endpoint/${epId}/secret`,
    );
    expect(read.body.previousSecrets).toHaveLength(1);
    expect(await frame.getByText(/^whsec_/).innerText()).toBe(read.body.key);
  });

  it("saves an edit made in its form", async () => {
    const { h } = ui;
    const edit = frame.locator("form").filter({ hasText: "Save changes" });
    await edit.getByLabel("Description").fill("Orders");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await said("Endpoint saved");
    expect((await h.svix.endpoint.get(appId, epId)).description).toBe("Orders");
  });

  it("deletes the endpoint once asked and answered", async () => {
    const { h, rx } = ui;
    await frame.getByRole("button", { name: "Delete endpoint" }).click();
    const question = frame.getByRole("dialog", { name: `Delete ${rx.url("/hook")}?` });
    await question.getByRole("button", { name: "Delete endpoint" }).click();
    await frame.getByRole("heading", { name: "Endpoints of Acme" }).waitFor();
    await said(`Endpoint ${rx.url("/hook")} deleted`);
    expect((await h.api("GET", `/api/v1/app/${appId}/endpoint/${epId}`)).status).toBe(404);
  });
});
