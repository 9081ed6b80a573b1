/**
 * Names, ids and URLs are the users' own, and an application name may be 256 characters of one
 * word. Such a name made the Applications table 2300 px wide (its Id column wrapping, its Portal
 * link buttons off screen), and the back links ("← Endpoints of …"), a long event id in the
 * message list and a toast naming the application made pages scroll sideways, at phone width too.
 * Long words now break where they must; the page stays within the window.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";

const NAME = `${"Northwind".repeat(28)}Corp`;
const EVENT_ID = `evt-${"0123456789abcdef".repeat(15)}-last`;

describe("operator console: long names and ids", () => {
  const ui = useDashboard();
  let appId: string;
  let epId: string;
  let msgId: string;

  beforeAll(async () => {
    const { h, rx } = ui;
    expect(NAME).toHaveLength(256);
    appId = (await h.svix.application.create({ name: NAME })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    msgId = (
      await h.svix.message.create(appId, {
        eventType: "order.paid",
        eventId: EVENT_ID,
        payload: {},
      })
    ).id;
  });

  /** How far the page reaches sideways, and the window's width. */
  const reach = (page: Page) =>
    page.evaluate<{ scroll: number; width: number }>(
      "({ scroll: document.scrollingElement.scrollWidth, width: window.innerWidth })",
    );
  /** Where an element's box ends on the right. */
  const rightOf = (page: Page, selector: string) =>
    page.evaluate<number>(
      `document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect().right`,
    );

  for (const width of [1280, 375]) {
    it(`keep every page within the window at ${width} px`, async () => {
      const { h, browser } = ui;
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      try {
        await signIn(page, h.url, h.token);
        await page.getByRole("link", { name: NAME }).waitFor();
        expect(await reach(page)).toEqual({ scroll: width, width });
        // The row's Portal link is on screen and works; the link it makes fits too.
        const portal = page.getByRole("button", { name: "Portal link" });
        expect(await rightOf(page, `[data-key="portal-${appId}"]`)).toBeLessThanOrEqual(width);
        if (width === 1280) {
          // The id stays on one line beside a name that wraps.
          expect(
            await page.evaluate<number>(
              `[...document.querySelectorAll("td code")].find((c) => c.textContent === ${JSON.stringify(appId)}).getClientRects().length`,
            ),
          ).toBe(1);
        }
        await portal.click();
        await page.getByText(`Portal link for ${NAME}`).waitFor();
        expect(await reach(page)).toEqual({ scroll: width, width });

        await page.goto(`${h.url}/ui/#/app/${appId}/endpoint/${epId}`);
        await page.getByRole("link", { name: `← Endpoints of ${NAME}` }).waitFor();
        expect(await reach(page)).toEqual({ scroll: width, width });

        await page.goto(`${h.url}/ui/#/app/${appId}/messages`);
        await page.getByText(EVENT_ID).waitFor();
        expect(await reach(page)).toEqual({ scroll: width, width });
        // A toast naming the application stays inside the window too.
        await page.getByLabel("Message or event id").fill(`evt-${"x".repeat(250)}`);
        await page.getByRole("button", { name: "Search" }).click();
        await page.getByText(`in ${NAME}`).waitFor();
        expect(await rightOf(page, "#toast")).toBeLessThanOrEqual(width);
        expect(await reach(page)).toEqual({ scroll: width, width });

        await page.goto(`${h.url}/ui/#/app/${appId}/message/${msgId}`);
        await page.getByRole("link", { name: `← Messages of ${NAME}` }).waitFor();
        await page.getByText(`event id ${EVENT_ID}`).waitFor();
        expect(await reach(page)).toEqual({ scroll: width, width });
      } finally {
        await page.close();
      }
    });
  }
});
