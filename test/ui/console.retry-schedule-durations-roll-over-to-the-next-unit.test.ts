/**
 * The endpoint page's durations roll over to the next unit: a wait that rounds to a whole minute
 * or hour reads "1 min" or "1 h", never "60 s", "60 min" or "1 h 60 min". The formatter rounded
 * each unit without carrying it into the next.
 */
import { describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint } from "../support/dlq.js";

describe("operator console: the retry schedule", () => {
  const ui = useDashboard({ receiver: () => ({ status: 200 }) });

  it("reads waits just short of a minute or an hour as 1 min and 1 h", async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/hook"), {
      retry: { delays: [59.97, 3599, 3600], window: 86_400 },
    });
    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#/app/${ep.appId}/endpoint/${ep.endpointId}`);
    const schedule = page.getByRole("table", { name: "Retries after a failed attempt" });
    await schedule.getByRole("row").nth(3).waitFor();
    const rows = await schedule.getByRole("row").allInnerTexts();
    expect(rows.slice(1).map((r) => r.split("\t").map((c) => c.trim()))).toEqual([
      ["#2", "1\u00a0min", "1\u00a0min"],
      ["#3", "1\u00a0h", "1\u00a0h\u00a01\u00a0min"],
      ["#4", "1\u00a0h", "2\u00a0h\u00a01\u00a0min"],
    ]);
  });
});
