/**
 * The bulk replay form leaves the canary size and the rate to hookline's configuration
 * (HOOKLINE_DLQ_CANARY_SIZE, HOOKLINE_DLQ_REPLAY_RATE) unless the operator types them. It sent a
 * canary of 5 at 10/s whatever was configured, and a field left empty as 0: an emptied canary
 * field started a job with no canary at all.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER } from "../support/dlq.js";

describe("operator console: the bulk replay form", () => {
  const ui = useDashboard({
    hookline: {
      env: { HOOKLINE_DLQ_CANARY_SIZE: "3", HOOKLINE_DLQ_REPLAY_RATE: "7" },
      overrides: { breaker: PATIENT_BREAKER },
    },
    receiver: () => ({ status: 503 }),
  });
  beforeAll(async () => {
    const { h, rx, page } = ui;
    await deadLetters(h, await anEndpoint(h, rx.url("/orders")), 1);
    await signIn(page, h.url, h.token);
  });

  const openForm = async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/dlq`);
    await page.getByRole("button", { name: "Start bulk replay" }).waitFor();
    return {
      fill: async (label: string, value: string) => page.getByLabel(label).fill(value),
      start: async () => {
        await page.getByRole("button", { name: "Start bulk replay" }).click();
        // Asked first (the count of records it would replay).
        await page.getByRole("dialog").getByRole("button", { name: "Start bulk replay" }).click();
        await page.getByRole("heading", { name: /Bulk replay job_/ }).waitFor();
        const job = page.getByRole("region", { name: "Job" }).locator("p").first();
        await job.getByText(/canary/).waitFor();
        return job.innerText();
      },
    };
  };

  it("uses the configured canary and rate when they are not typed", async () => {
    const form = await openForm();
    expect(await form.start()).toMatch(/canary 3 at \d+% · 7\/s/);
  });

  it("takes an emptied field as the configured value, not as 0", async () => {
    const form = await openForm();
    await form.fill("Canary size", "");
    await form.fill("Rate per second", "");
    expect(await form.start()).toMatch(/canary 3 at \d+% · 7\/s/);
  });

  it("uses the values typed", async () => {
    const form = await openForm();
    await form.fill("Canary size", "0");
    await form.fill("Rate per second", "2.5");
    expect(await form.start()).toMatch(/canary 0 at \d+% · 2.5\/s/);
  });
});
