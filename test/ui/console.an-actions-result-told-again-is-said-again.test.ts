/**
 * The toast leaves a message already on show as it is when it is told again, so that each live
 * update failing alike is not read out every 2 s. An action that a person takes again, and that
 * ends as the last one did ("Write a note saying why first.", "Replay failed" for the next record),
 * is news each time: left as it was, a screen reader said nothing the second time, as if the press
 * had done nothing.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER, type RecordOut } from "../support/dlq.js";

describe("operator console: an action's result told again is said again", () => {
  const ui = useDashboard({
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status: 503, body: "maintenance" }),
    signedIn: true,
  });
  let record: RecordOut;

  beforeAll(async () => {
    const ep = await anEndpoint(ui.h, ui.rx.url("/orders"));
    record = (await deadLetters(ui.h, ep, 1))[0]!;
  });

  it("writes the refusal into the alert again when the same press is refused again", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/dlq/${record.id}`);
    await page.getByRole("table", { name: "History" }).waitFor();
    const resolve = page.getByRole("button", { name: "Resolve" });
    const alert = page.locator("#toast").getByRole("alert");
    await resolve.click();
    await alert.getByText("Write a note saying why first.").waitFor();
    await expect.poll(() => resolve.getAttribute("aria-disabled")).toBeNull();
    await page.evaluate(`(() => {
      window.toastWrites = 0;
      // Writes, not the clearing 8 s on.
      new MutationObserver((changes) => {
        for (const c of changes) if (c.addedNodes.length) window.toastWrites++;
      }).observe(
        document.getElementById("toast-error"),
        { childList: true, characterData: true, subtree: true },
      );
    })()`);
    await resolve.click();
    await expect
      .poll(() => page.evaluate<number>("window.toastWrites"), { timeout: 10_000 })
      .toBeGreaterThan(0);
    expect(await alert.textContent()).toBe("Write a note saying why first.");
    expect((await h.api<{ state: string }>("GET", `/api/v1/dlq/${record.id}`)).body.state).toBe(
      "open",
    );
  });
});
