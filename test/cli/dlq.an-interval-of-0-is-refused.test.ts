/**
 * `--interval <ms>` of `dlq job --watch` and `dlq replay-bulk` is how long to wait between looks at
 * the job. 0 was taken, and the command asked hookline about the job as fast as it could answer,
 * for as long as the job ran. An interval below 100 ms is refused naming the option.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { runDlq, startFakeApi, type FakeApi } from "../support/fake-api.js";

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(200, { id: "job_1", state: "scheduled" });
});
afterAll(() => api.close());

it.each([
  ["job", "job_1", "--watch", "--interval", "0"],
  ["replay-bulk", "--endpoint", "ep_x", "--interval", "0"],
  ["job", "job_1", "--watch", "--interval", "99"],
])("%s refuses a too short --interval without a request", async (...args: string[]) => {
  const before = api.bodies.length;
  await expect(runDlq(api.url, args, 0)).rejects.toThrow(/--interval.*at least 100/);
  expect(api.bodies).toHaveLength(before);
});
