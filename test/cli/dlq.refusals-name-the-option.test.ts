/**
 * A value the CLI passes on and hookline's API refuses is named as the operator typed it:
 * `--limit`, `--rate`, `--canary`, `--note` — not the API's `query.limit` or
 * `body.ratePerSecond`, names that appear nowhere in `--help`. A replay-bulk that selects nothing
 * names the options that select.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(() => h.stop());

async function refusal(...args: string[]): Promise<string> {
  const cmd = dlqCommand(
    { url: h.url, token: h.token },
    {
      out: { write: () => true },
      now: () => Date.now(),
      sleep: async () => {},
      setExitCode: () => {},
    },
  );
  const err = await cmd.parseAsync(args, { from: "user" }).then(
    () => new Error("the command succeeded"),
    (e: unknown) => e as Error,
  );
  return err.message;
}

it.each([
  [["list", "--limit", "500"], "--limit: must be a whole number from 1 to 250"],
  [
    ["list", "--state", "open,gone"],
    "--state: must be one of open, replaying, resolved, abandoned",
  ],
  [["replay-bulk", "--detach", "--endpoint", "ep_x", "--rate", "5000"], "--rate: "],
  [["replay-bulk", "--detach", "--endpoint", "ep_x", "--canary", "20000"], "--canary: "],
  [["replay-bulk", "--detach", "--ids", "dlq_a,nope"], "--ids: must be a dead-letter record id"],
  [
    ["replay-bulk", "--detach", "--since", "1h", "--until", "2h"],
    "--until: must be later than since",
  ],
  [["resolve", "dlq_x", "--note", ""], "--note: must not be empty"],
])("%j is refused naming the option", async (args, said) => {
  const message = await refusal(...args);
  expect(message).toContain(said);
  expect(message).not.toMatch(/\b(query|body)\./);
});

it("replay-bulk selecting nothing names the options that select", async () => {
  const message = await refusal("replay-bulk", "--detach");
  expect(message).toContain("--endpoint");
  expect(message).toContain("--ids");
});
