/**
 * `hookline dlq replay-bulk --ids` takes a comma-separated list. Written by hand, as
 * `--ids "dlq_a, dlq_b"`, the blanks around each id are no part of it: the job replays those
 * records, not a refusal of " dlq_b" as "not a dead-letter record id".
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { runDlq, startFakeApi, type FakeApi } from "../support/fake-api.js";

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(202, { id: "job_1", state: "scheduled" });
});
afterAll(() => api.close());

it("sends each id without the blanks around it", async () => {
  await runDlq(api.url, ["replay-bulk", "--detach", "--ids", " dlq_a, dlq_b ,dlq_c,"], 0);
  expect(api.bodies.at(-1)?.ids).toEqual(["dlq_a", "dlq_b", "dlq_c"]);
});
