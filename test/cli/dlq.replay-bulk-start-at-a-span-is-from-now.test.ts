/**
 * `hookline dlq replay-bulk --start-at` schedules a job for later: a span such as `30m` is that
 * long from now, not that long ago (which would start the job at once), while `--since` and
 * `--until` still read a span as a time back.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { startFakeApi, type FakeApi } from "../support/fake-api.js";

const NOW = Date.parse("2026-03-02T10:00:00.000Z");

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(202, { id: "job_1", state: "scheduled" });
});
afterAll(() => api.close());

async function replayBulk(...args: string[]): Promise<Record<string, unknown>> {
  const cmd = dlqCommand(
    { url: api.url, token: "hl_test_token_0123456789abcdef" },
    { out: { write: () => true }, now: () => NOW, sleep: async () => {}, setExitCode: () => {} },
  );
  for (const c of [cmd, ...cmd.commands]) c.exitOverride();
  await cmd.parseAsync(["replay-bulk", "--detach", "--endpoint", "ep_x", ...args], {
    from: "user",
  });
  return api.bodies.at(-1)!;
}

it("starts a job given --start-at 30m half an hour from now", async () => {
  const body = await replayBulk("--start-at", "30m", "--since", "2h");
  expect(body.startAt).toBe("2026-03-02T10:30:00.000Z");
  expect(body.since).toBe("2026-03-02T08:00:00.000Z");
});

it("takes --start-at as ISO-8601 as it is", async () => {
  const body = await replayBulk("--start-at", "2026-03-03T06:00:00Z");
  expect(body.startAt).toBe("2026-03-03T06:00:00.000Z");
});
