/**
 * A payload string holding a Unicode direction control (a right-to-left override, U+202E, or an
 * isolate's end, U+2069, before one) reverses only itself. It reversed the rest of the payload as
 * sent, so `{"note":"\u202Eabc","n":12345,"tail":"xyz"}` read with `"tail"` left of `12345`: a
 * sender's string could make the portal show a payload other than the one sent and signed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPortal, useDashboard, whereDrawn } from "../support/browser.js";

describe("customer portal: direction controls in a payload", () => {
  const ui = useDashboard();
  let appId: string;
  const sent: Record<string, string> = {};

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    await h.svix.endpoint.create(appId, { url: rx.url("/hook") });
    for (const [name, note] of [
      ["override", "\u202eabc"],
      ["isolate end, then override", "\u2069\u202eabc"],
    ]) {
      const payload = { note, n: 12345, tail: "xyz" };
      sent[name!] = (await h.svix.message.create(appId, { eventType: "order.paid", payload })).id;
    }
    await openPortal(page, h, appId);
  });

  it.each(["override", "isolate end, then override"])(
    "draws what follows a string with an %s in the order it was sent",
    async (name) => {
      const { h, page } = ui;
      await page.goto(`${h.url}/portal/#/app/${appId}/message/${sent[name]}`);
      // This message's page, not the one the test before left (only the fragment changed): a
      // click on that one's fold was lost with it, and the fold measured here was shut, every
      // character of it at 0, which passes whatever the order.
      await page.getByRole("heading", { level: 1, name: sent[name] }).waitFor();
      await page.getByText("As sent: the exact bytes each signature covers").click();
      const asSent = page.getByLabel("Payload as sent");
      await asSent.waitFor();
      expect(await asSent.textContent()).toContain(',"n":12345,"tail":"xyz"}');
      for (const pre of [page.locator("pre.payload").first(), asSent]) {
        // Where the number and the member after it are drawn, left to right.
        const number = await whereDrawn(pre, "12345");
        const tail = await whereDrawn(pre, '"tail"');
        if (number.top === tail.top) expect(tail.left).toBeGreaterThanOrEqual(number.right - 1);
        // The indented view puts each member on a line of its own, and a line starts left.
      }
      // And the number itself reads as sent, not reversed.
      const digits = await asSent.evaluate((el) => {
        const doc = el.ownerDocument;
        const walker = doc.createTreeWalker(el, 4);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const i = n.textContent!.indexOf("12345");
          if (i < 0) continue;
          const at = (k: number) => {
            const r = doc.createRange();
            r.setStart(n, i + k);
            r.setEnd(n, i + k + 1);
            return r.getBoundingClientRect().left;
          };
          return [0, 1, 2, 3, 4].map(at);
        }
        return [];
      });
      expect(digits).toEqual([...digits].sort((a, b) => a - b));
    },
  );
});
