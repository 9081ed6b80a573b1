/**
 * A customer who presses Enter in the endpoint's Edit form again (or clicks "Save changes" again)
 * while hookline has not yet answered saves once. The form sent its PATCH on every submit until
 * the first answer came back: one save per press, each said "Endpoint saved", and a field changed
 * between the presses went out in a second save the customer never meant as one. The form now
 * saves once at a time, its button busy meanwhile, as the other forms do.
 */
import { describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

describe("customer portal: saving an endpoint's edit", () => {
  const ui = useDashboard();

  it("sends one save however often the form is sent while it waits", async () => {
    const { h, rx, page } = ui;
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/hook") });
    await openPortal(page, h, app.id);
    await page.goto(`${h.url}/portal/#/app/${app.id}/endpoint/${ep.id}`);
    await page.getByRole("heading", { level: 1, name: rx.url("/hook") }).waitFor();

    // hookline's answer is held until the customer has pressed Enter twice and clicked Save.
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let patches = 0;
    await page.route(`**/api/v1/app/*/endpoint/${ep.id}`, async (route) => {
      if (route.request().method() === "PATCH") {
        patches += 1;
        await held;
      }
      await route.continue();
    });
    const edit = page.getByRole("form", { name: "Edit" });
    await edit.getByLabel("Description").fill("Orders");
    await edit.getByLabel("Description").press("Enter");
    await edit.getByLabel("Description").press("Enter");
    // Busy, the button is aria-disabled, which playwright waits out: a person's click is not held.
    await edit.getByRole("button", { name: "Save changes" }).click({ force: true });
    // While it waits, the button says it is busy.
    expect(
      await edit.getByRole("button", { name: "Save changes" }).getAttribute("aria-disabled"),
    ).toBe("true");
    release();

    await page.getByText("Endpoint saved").waitFor({ timeout: 15_000 });
    // Answered, the form can be sent again (busy is aria-disabled, which CSS's :enabled misses).
    await edit
      .getByRole("button", { name: "Save changes", disabled: false })
      .waitFor({ timeout: 15_000 });
    expect(patches).toBe(1);
    const saved = await h.svix.endpoint.get(app.id, ep.id);
    expect(saved.description).toBe("Orders");
  });
});
