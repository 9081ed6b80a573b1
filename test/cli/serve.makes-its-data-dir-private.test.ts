/**
 * Without an encryption key the SQLite file holds endpoint secrets in plaintext, so a data dir
 * hookline makes is readable by its own user only; one the operator made keeps its mode.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnHookline, type HooklineProcess } from "../support/process.js";

let running: HooklineProcess | null = null;
const dirs: string[] = [];
afterEach(async () => {
  running?.child.kill("SIGTERM");
  await running?.exited;
  running = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function parent(): string {
  const dir = mkdtempSync(join(tmpdir(), "hookline-datadir-"));
  dirs.push(dir);
  return dir;
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("the data dir", () => {
  it("is made 0700 when hookline creates it, with an admin token set", async () => {
    const dir = join(parent(), "nested", "data");
    running = await spawnHookline(dir);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, ".."))).toBe(0o700);
  });

  it("is made 0700 when hookline creates it and keeps its own admin token", async () => {
    const dir = join(parent(), "data");
    running = await spawnHookline(dir, { HOOKLINE_ADMIN_TOKEN: "" });
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, "admin-token"))).toBe(0o600);
  });

  it("keeps the mode of a directory that already exists", async () => {
    const dir = join(parent(), "data");
    mkdirSync(dir);
    chmodSync(dir, 0o750);
    running = await spawnHookline(dir);
    expect(modeOf(dir)).toBe(0o750);
  });
});
