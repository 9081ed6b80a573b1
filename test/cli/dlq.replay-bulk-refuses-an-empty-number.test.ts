/**
 * `hookline dlq replay-bulk --threshold`, `--canary` and `--interval` take numbers: an empty value
 * (a script's `--threshold "$THRESHOLD"` with the variable unset) or blanks are no number and are
 * refused before a request is made — not read as 0, which for `--threshold` means "replay the rest
 * whatever the canary did" and for `--canary` "no canary at all".
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { startFakeApi, type FakeApi } from "../support/fake-api.js";

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(202, { id: "job_1", state: "scheduled" });
});
afterAll(() => api.close());

function replayBulk(option: string, value: string) {
  const cmd = dlqCommand(
    { url: api.url, token: "hl_test_token_0123456789abcdef" },
    { out: { write: () => true }, now: () => 0, sleep: async () => {}, setExitCode: () => {} },
  );
  for (const c of [cmd, ...cmd.commands]) {
    c.exitOverride().configureOutput({ writeErr: () => {} });
  }
  return cmd.parseAsync(["replay-bulk", "--detach", "--endpoint", "ep_x", option, value], {
    from: "user",
  });
}

it.each([
  ["--threshold", ""],
  ["--threshold", " "],
  ["--canary", ""],
  ["--interval", ""],
])("refuses %s %j without a request", async (option, value) => {
  const before = api.bodies.length;
  await expect(replayBulk(option, value)).rejects.toThrow(new RegExp(option));
  expect(api.bodies).toHaveLength(before);
});
