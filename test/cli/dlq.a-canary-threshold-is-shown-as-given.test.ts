/**
 * `hookline dlq replay-bulk` and `dlq job` describe the job with its canary's threshold as the
 * operator gave it: 99.5 % read "100 %", rounded to a whole percent, as if every replay of the
 * sample had to succeed.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { runDlq, startFakeApi, type FakeApi } from "../support/fake-api.js";

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(200, {
    id: "job_1",
    state: "completed",
    stage: "done",
    startAt: "2026-01-01T00:00:00.000Z",
    reason: null,
    selection: { endpointId: "ep_x" },
    ratePerSecond: 5,
    canary: { size: 10, threshold: 0.995 },
    progress: { total: 0, succeeded: 0, failed: 0, skipped: 0, withdrawn: 0, outstanding: 0 },
  });
});
afterAll(() => api.close());

it.each([
  ["replay-bulk", "--endpoint", "ep_x", "--threshold", "99.5"],
  ["job", "job_1"],
])("%s shows 99.5 % as 99.5 %", async (...args: string[]) => {
  const out = await runDlq(api.url, args, 0);
  expect(out).toContain("endpoint ep_x; 5/s, canary 10 at 99.5 %");
});
