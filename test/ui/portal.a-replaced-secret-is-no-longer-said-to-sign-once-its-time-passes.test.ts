/**
 * After a rotation the portal says until when the secrets the current one replaced still sign,
 * counting down: "The secret it replaced also signs until … (in 1 d)". The note was written when
 * the secret was revealed or rotated, and only its countdown followed the clock: once that time
 * had passed it said the old secret "also signs until … (now)" until the page was loaded again,
 * while hookline had stopped signing with it. The note now drops each replaced secret as its
 * time passes, and says only the current one signs once none is left.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

const HOUR = 3_600_000;

describe("customer portal: a replaced secret's time passing", () => {
  const ui = useDashboard();

  beforeAll(async () => {
    const { h, rx, page } = ui;
    const appId = (await h.svix.application.create({ name: "Acme" })).id;
    const epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    // The first secret signs for an hour beside the second; the second then for a day (this
    // hookline's grace) beside the third, rotated in the portal.
    await h.svix.endpoint.rotateSecret(appId, epId, { gracePeriodSeconds: 3600 });
    // The browser's clock is the test's: moving it on is time passing for the page alone.
    await page.clock.install();
    await openPortal(page, h, appId);
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Rotate secret" }).click();
  });

  const note = () => ui.page.getByRole("region", { name: "Signing secret" }).getByText(/signs?\b/);

  it("says both replaced secrets sign, until when each does", async () => {
    await ui.page.getByText(/The 2\u00a0secrets it replaced also sign/).waitFor();
    expect(await note().innerText()).toMatch(/until .+ \(in\s(1\sd|24\sh)\) and .+ \(in\s1\sh\)/);
  });

  it("leaves out the one whose time has passed", async () => {
    await ui.page.clock.fastForward(2 * HOUR);
    await ui.page
      .getByText(/^The secret it replaced also signs until/)
      .waitFor({ timeout: 10_000 });
    expect(await note().innerText()).toMatch(/until .+ \(in\s(22|23)\sh\): the receiver may see/);
  });

  it("says only the current secret signs once the last one's time has passed", async () => {
    await ui.page.clock.fastForward(23 * HOUR);
    await ui.page.getByText(/^Only this secret signs/).waitFor({ timeout: 10_000 });
    expect(await note().innerText()).not.toMatch(/also signs/);
  });
});
