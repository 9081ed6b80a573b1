/**
 * A running job's reason says what it waits for (results, its rate, an open circuit's probe) or
 * its canary's verdict; the job's page put "Result:" before it, a label meant for a finished
 * job's summary, so a job replaying one record every 20 s read "Result: waiting for its rate:
 * 0.05 replays a second", as if it had ended on that. A running job's reason is shown as it is; a
 * finished one's is still its result, a stopped one's why it stopped.
 */
import { describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER, untilJob } from "../support/dlq.js";

describe("operator console: a running replay job's reason", () => {
  let status = 400;
  const ui = useDashboard({
    hookline: { overrides: { breaker: PATIENT_BREAKER } },
    receiver: () => ({ status, body: status === 200 ? "ok" : "bad" }),
  });

  it("is shown as what the job waits for, not as its result", async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/orders"));
    await deadLetters(h, ep, 2);
    status = 200;
    const job = await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      ratePerSecond: 0.05,
      canarySize: 0,
    });
    expect(job.status).toBe(202);
    const rate = "waiting for its rate: 0.05 replays a second";
    await untilJob(h, job.body.id, (j) => j.progress.succeeded === 1 && j.reason === rate);

    await signIn(page, h.url, h.token);
    await page.goto(`${h.url}/ui/#/jobs/${job.body.id}`);
    await page.getByTestId("job-state").getByText("running").waitFor();
    const reason = page.locator("p", { hasText: rate });
    await reason.waitFor();
    expect(await reason.innerText()).toBe(rate);
  });
});
