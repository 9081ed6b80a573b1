/**
 * The admin token kept in the data dir is held to the rule HOOKLINE_ADMIN_TOKEN is: a file
 * emptied or cut short (a full disk, a careless edit) stops start-up saying what to do, instead of
 * starting with a token nobody can send and printing a blank "Admin token:".
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadOrCreateAdminToken } from "../../src/app.js";
import { ConfigError } from "../../src/errors.js";
import { tempDir, useCleanup } from "../support/cleanup.js";

const cleanup = useCleanup();
const dataDir = () => tempDir(cleanup, "hookline-token-");

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
