/**
 * At phone width a table turns into one card per row, each value under its column's name, so
 * what matters (the circuit, the success rate, an attempt's status) is on screen without
 * scrolling sideways. Before, the tables kept their columns and scrolled inside their box: at
 * 390 px the endpoints list showed the URL and "Enabled" and hid the circuit off to the right.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard } from "../support/browser.js";

const WIDTH = 390;

describe("customer portal: tables at phone width", () => {
  const ui = useDashboard({ receiver: () => ({ status: 503, body: "maintenance" }) });
  let phone: Page;
  let appId: string;
  let epId: string;

  beforeAll(async () => {
    const { h, rx, browser } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/orders") })).id;
    await h.svix.endpoint.create(appId, { url: rx.url("/invoices") });
    const msg = await h.svix.message.create(appId, { eventType: "order.paid", payload: {} });
    await h.waitFor(
      (e) => e.type === "delivery" && e.messageId === msg.id && e.endpointId === epId,
    );
    phone = await browser.newPage({ viewport: { width: WIDTH, height: 844 } });
    await openPortal(phone, h, appId);
  });

  /**
   * Each cell of the column, with whether it is on screen and the name shown beside it; run in
   * the page (as text: the tests are compiled without the DOM's types).
   */
  const column = (table: string, header: string) =>
    phone.evaluate<{ scrolls: boolean; cells: { onScreen: boolean; label: string }[] }>(`(() => {
      const t = [...document.querySelectorAll("table")].find(
        (el) => el.caption?.textContent === ${JSON.stringify(table)},
      );
      const index = [...t.tHead.rows[0].cells].findIndex(
        (c) => c.textContent === ${JSON.stringify(header)},
      );
      const wrap = t.closest(".table-wrap");
      return {
        scrolls: wrap.scrollWidth > wrap.clientWidth,
        cells: [...t.tBodies[0].rows].map((r) => {
          const cell = r.cells[index];
          const box = cell.getBoundingClientRect();
          return {
            onScreen: box.left >= 0 && box.right <= window.innerWidth,
            label: getComputedStyle(cell, "::before").content,
          };
        }),
      };
    })()`);

  it("shows every endpoint's circuit on screen, named", async () => {
    const list = await column("Endpoints and their health (last hour)", "Circuit");
    expect(list.scrolls).toBe(false);
    expect(list.cells).toEqual([
      { onScreen: true, label: '"Circuit"' },
      { onScreen: true, label: '"Circuit"' },
    ]);
  });

  it("shows an attempt's status on screen, and the page never scrolls sideways", async () => {
    await phone.goto(`${ui.h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    await phone.getByRole("table", { name: "Recent attempts" }).getByText("503").first().waitFor();
    const attempts = await column("Recent attempts", "Status");
    expect(attempts.scrolls).toBe(false);
    expect(attempts.cells[0]).toEqual({ onScreen: true, label: '"Status"' });
    expect(
      await phone.evaluate<number>("document.documentElement.scrollWidth"),
    ).toBeLessThanOrEqual(WIDTH);
  });
});
