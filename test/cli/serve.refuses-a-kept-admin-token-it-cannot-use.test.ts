/**
 * The admin token kept in the data dir is held to the rule HOOKLINE_ADMIN_TOKEN is: a file
 * emptied or cut short (a full disk, a careless edit) stops start-up saying what to do, instead of
 * starting with a token nobody can send and printing a blank "Admin token:".
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { loadOrCreateAdminToken } from "../../src/app.js";
import { ConfigError } from "../../src/errors.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "hookline-token-"));
  dirs.push(dir);
  return dir;
}

it.each(["", "\n", "hl_admin_abc\n", "two words but long enough\n"])(
  "refuses a kept token of %j, naming the file",
  (kept) => {
    const dir = dataDir();
    writeFileSync(join(dir, "admin-token"), kept);
    expect(() => loadOrCreateAdminToken(dir)).toThrow(ConfigError);
    expect(() => loadOrCreateAdminToken(dir)).toThrow(join(dir, "admin-token"));
  },
);

it("keeps using a token it generated", () => {
  const dir = dataDir();
  const made = loadOrCreateAdminToken(dir);
  expect(readFileSync(join(dir, "admin-token"), "utf8")).toBe(`${made}\n`);
  expect(loadOrCreateAdminToken(dir)).toBe(made);
});
