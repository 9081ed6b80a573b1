/**
 * `hookline keys rotate --batch-size` takes a whole number of rows: a typo is refused before
 * anything is opened, naming the option, instead of reaching the query as NaN — or, past the
 * integers a number holds exactly, as a value SQLite refuses with a stack trace.
 */
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { keysCommand } from "../../src/cli/keys.js";

it.each(["abc", "0", "2.5"])("refuses --batch-size %s", async (value) => {
  let err = "";
  const cmd = keysCommand({ HOOKLINE_DATA_DIR: "/nonexistent/hookline" }, new PassThrough());
  for (const c of [cmd, ...cmd.commands]) {
    c.exitOverride().configureOutput({ writeErr: (s) => (err += s) });
  }
  await expect(cmd.parseAsync(["rotate", "--batch-size", value], { from: "user" })).rejects.toThrow(
    /--batch-size/,
  );
  expect(err).toContain("must be a whole number, at least 1");
});

it("refuses a --batch-size past the whole numbers a number holds", async () => {
  let err = "";
  const cmd = keysCommand({ HOOKLINE_DATA_DIR: "/nonexistent/hookline" }, new PassThrough());
  for (const c of [cmd, ...cmd.commands]) {
    c.exitOverride().configureOutput({ writeErr: (s) => (err += s) });
  }
  const run = cmd.parseAsync(["rotate", "--batch-size", "99999999999999999999"], { from: "user" });
  await expect(run).rejects.toThrow(/--batch-size/);
  expect(err).toContain(`at most ${Number.MAX_SAFE_INTEGER}`);
});
