/**
 * The console lists hookline's own applications so their deliveries can be followed, but hookline
 * refuses a portal link to them (it would read the operational endpoints' secrets, and a link is
 * made to be handed out). Their row says whose they are instead of offering a button that fails;
 * a customer's application keeps its button, even one whose metadata copies hookline's marker.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATIONAL_APP_UID } from "../../src/observability/system-apps.js";
import { signIn, useDashboard } from "../support/browser.js";

describe("operator console: hookline's own applications", () => {
  const ui = useDashboard();
  let acme: string;
  let copycat: string;
  let own: string;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    acme = (await h.svix.application.create({ name: "Acme" })).id;
    copycat = (
      await h.svix.application.create({
        name: "Copycat",
        metadata: { "hookline.system": "true" },
      })
    ).id;
    await h.svix.operationalWebhookEndpoint.create({ url: rx.url("/ops") });
    own = (await h.svix.application.get(OPERATIONAL_APP_UID)).id;
    await signIn(page, h.url, h.token);
  });

  it("says the application is hookline's own where customers' have a portal link", async () => {
    const { page } = ui;
    const row = (id: string) => page.getByRole("row").filter({ hasText: id });
    await row(own).waitFor();
    expect(await row(own).getByText("hookline's own").isVisible()).toBe(true);
    expect(await row(own).getByRole("button", { name: "Portal link" }).count()).toBe(0);
    for (const id of [acme, copycat]) {
      expect(await row(id).getByRole("button", { name: "Portal link" }).count()).toBe(1);
    }

    await row(acme).getByRole("button", { name: "Portal link" }).click();
    const url = await page.getByLabel("Portal link").inputValue();
    expect(url).toContain("/portal/#");
  });
});
