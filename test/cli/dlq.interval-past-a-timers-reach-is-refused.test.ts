/**
 * `--interval <ms>` of `dlq job --watch` and `dlq replay-bulk` waits between looks with a timer,
 * which holds at most 2,147,483,647 ms (about 24 days). Past that Node warns on every look and
 * waits 1 ms instead: the command printed "TimeoutOverflowWarning" lines and asked hookline about
 * the job a thousand times a second. Such an interval is refused naming the option.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { runDlq, startFakeApi, type FakeApi } from "../support/fake-api.js";

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(200, { id: "job_1", state: "scheduled" });
});
afterAll(() => api.close());

it.each([
  ["job", "job_1", "--watch"],
  ["replay-bulk", "--endpoint", "ep_x"],
])("%s refuses --interval 2147483648 without a request", async (...args: string[]) => {
  const before = api.bodies.length;
  await expect(runDlq(api.url, [...args, "--interval", "2147483648"], 0)).rejects.toThrow(
    /--interval.*at most 2147483647/,
  );
  expect(api.bodies).toHaveLength(before);
});
