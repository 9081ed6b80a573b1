/**
 * A span given to `--since`, `--until` or `--start-at` that reaches past the dates JavaScript can
 * hold (`--since 200000000d`) is refused like any other unreadable time, naming the option — not
 * thrown as a bare `RangeError: Invalid time value` with a stack trace.
 */
import { expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { parseTime } from "../../src/cli/format.js";

const NOW = Date.parse("2026-03-02T10:00:00.000Z");

it("parseTime reads a span beyond the representable dates as unreadable", () => {
  expect(() => parseTime("200000000d", NOW)).not.toThrow();
  expect(parseTime("200000000d", NOW)).toBeNull();
  expect(parseTime("200000000d", NOW, "ahead")).toBeNull();
});

it("dlq list --since 200000000d is refused naming --since", async () => {
  let err = "";
  const cmd = dlqCommand(
    { url: "http://127.0.0.1:9", token: "hl_test_token_0123456789abcdef" },
    { out: { write: () => true }, now: () => NOW, sleep: async () => {}, setExitCode: () => {} },
  );
  for (const c of [cmd, ...cmd.commands]) {
    c.exitOverride().configureOutput({ writeErr: (s) => (err += s) });
  }
  const failure = await cmd
    .parseAsync(["list", "--since", "200000000d"], { from: "user" })
    .catch((e: unknown) => e);
  expect(failure).not.toBeInstanceOf(RangeError);
  expect(err).toMatch(/--since: use ISO-8601 .* or a span back/);
});
