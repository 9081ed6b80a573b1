/**
 * `hookline dlq replay-bulk --detach` returns at once, and its help (and the runbook) say how to
 * follow the job later. `hookline dlq job <id>` alone prints the job's state once and exits; only
 * with `--watch` does it follow the job until it ends, so that is the command they must name.
 */
import { expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";

it("names `hookline dlq job <id> --watch` as the way to follow a detached job", () => {
  const cmd = dlqCommand(
    { url: "http://127.0.0.1:9", token: "hl_test_token_0123456789abcdef" },
    { out: { write: () => true }, now: () => 0, sleep: async () => {}, setExitCode: () => {} },
  );
  const replayBulk = cmd.commands.find((c) => c.name() === "replay-bulk")!;
  const detach = replayBulk.options.find((o) => o.long === "--detach")!;
  expect(detach.description).toContain("hookline dlq job <id> --watch");
});
