/**
 * A customer rotating their endpoint's secret in the portal was asked first how long the old one
 * keeps signing, then shown the new secret, and nothing more: once the question was answered,
 * nothing said until when their receiver may still see the old secret's signature, nor, on coming
 * back, whether it still does. The secret, revealed or rotated, now comes with when each secret it
 * replaced stops signing, from the API's `previousSecrets`, counting down.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, screenshot, useDashboard } from "../support/browser.js";

describe("customer portal: rotating a secret", () => {
  const ui = useDashboard();
  let path: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    const appId = (await h.svix.application.create({ name: "Acme" })).id;
    const epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    path = `${h.url}/portal/#/app/${appId}/endpoint/${epId}`;
    await openPortal(page, h, appId);
  });

  const secretSection = () => ui.page.getByRole("region", { name: "Signing secret" });

  it("says, once revealed, that no other secret signs before any rotation", async () => {
    const { page } = ui;
    await page.goto(path);
    await page.getByRole("button", { name: "Reveal secret" }).click();
    await secretSection()
      .getByText(/^whsec_/)
      .waitFor();
    await secretSection().getByText(/signs/).waitFor();
    expect(await secretSection().innerText()).toMatch(/Only this secret signs/);
  });

  it("says until when the old secret signs beside the new one once rotated", async () => {
    const { page } = ui;
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Rotate secret" }).click();
    await secretSection()
      .getByText(/also signs until/)
      .waitFor();
    const said = await secretSection().innerText();
    expect(said).toMatch(/The secret it replaced also signs until .+ \(in\s(1\sd|24\sh)\)/);
  });

  it("says so again when the secret is revealed on coming back", async () => {
    const { page } = ui;
    await page.goto("about:blank");
    await page.goto(path);
    await page.getByRole("button", { name: "Reveal secret" }).click();
    await secretSection()
      .getByText(/also signs until .+ \(in\s(1\sd|24\sh)\)/)
      .waitFor();
  });

  it("says until when each signs after another rotation", async () => {
    const { page } = ui;
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Rotate secret" }).click();
    const note = secretSection().getByText(/The 2\u00a0secrets it replaced also sign/);
    await note.waitFor();
    expect(await note.innerText()).toMatch(
      /until .+ \(in\s(1\sd|24\sh)\) and .+ \(in\s(1\sd|24\sh)\): the receiver may see their signatures/,
    );
    await screenshot(page, "portal-secret-rotated-twice");
  });
});
