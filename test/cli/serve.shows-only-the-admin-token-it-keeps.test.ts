/**
 * `hookline serve` prints the admin token it generated and keeps in the data dir (the README's
 * first start relies on it), but never a token the operator set in HOOKLINE_ADMIN_TOKEN: stdout
 * is often where the logs go.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnHookline, TEST_TOKEN, type HooklineProcess } from "../support/process.js";

let running: HooklineProcess | null = null;
const dirs: string[] = [];
afterEach(async () => {
  running?.child.kill("SIGTERM");
  await running?.exited;
  running = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "hookline-serve-"));
  dirs.push(dir);
  return dir;
}

describe("the start banner", () => {
  it("does not print a token set in HOOKLINE_ADMIN_TOKEN", async () => {
    running = await spawnHookline(dataDir());
    expect(running.output()).toContain("Admin token:  as set in HOOKLINE_ADMIN_TOKEN");
    expect(running.output()).not.toContain(TEST_TOKEN);
  });

  it("prints the token it generated and keeps in the data dir", async () => {
    const dir = dataDir();
    running = await spawnHookline(dir, { HOOKLINE_ADMIN_TOKEN: "" });
    const kept = readFileSync(join(dir, "admin-token"), "utf8").trim();
    expect(kept).toMatch(/^hl_admin_/);
    expect(running.output()).toContain(`Admin token:  ${kept}`);
  });
});
