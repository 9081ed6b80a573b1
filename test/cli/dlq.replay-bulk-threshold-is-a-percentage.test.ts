/**
 * `hookline dlq replay-bulk --threshold` is a percentage of the canary that must succeed, from 0
 * (go on whatever the sample did) to 100; anything else is refused before a request is made.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { startFakeApi, type FakeApi } from "../support/fake-api.js";

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(202, { id: "job_1", state: "scheduled" });
});
afterAll(() => api.close());

function replayBulk(threshold: string) {
  let err = "";
  const cmd = dlqCommand(
    { url: api.url, token: "hl_test_token_0123456789abcdef" },
    { out: { write: () => true }, now: () => 0, sleep: async () => {}, setExitCode: () => {} },
  );
  for (const c of [cmd, ...cmd.commands]) {
    c.exitOverride().configureOutput({ writeErr: (s) => (err += s) });
  }
  const run = cmd.parseAsync(
    ["replay-bulk", "--detach", "--endpoint", "ep_x", "--threshold", threshold],
    {
      from: "user",
    },
  );
  return { run, err: () => err };
}

it("sends 0 % and 100 % as 0 and 1", async () => {
  await replayBulk("0").run;
  await replayBulk("100").run;
  expect(api.bodies.map((b) => b.canaryThreshold)).toEqual([0, 1]);
});

it.each(["-1", "150", "most"])("refuses %s without a request", async (value) => {
  const before = api.bodies.length;
  const { run, err } = replayBulk(value);
  await expect(run).rejects.toThrow(/--threshold/);
  expect(err()).toContain("must be a percentage from 0 to 100");
  expect(api.bodies).toHaveLength(before);
});
