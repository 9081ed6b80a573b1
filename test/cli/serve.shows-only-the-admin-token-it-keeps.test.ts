/**
 * `hookline serve` prints the admin token it generated and keeps in the data dir (the README's
 * first start relies on it), but never a token the operator set in HOOKLINE_ADMIN_TOKEN: stdout
 * is often where the logs go.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runHookline, TEST_TOKEN } from "../support/process.js";

const cleanup = useCleanup();

describe("the start banner", () => {
  it("does not print a token set in HOOKLINE_ADMIN_TOKEN", async () => {
    const running = await runHookline(cleanup, tempDir(cleanup, "hookline-serve-"));
    expect(running.output()).toContain("Admin token:  as set in HOOKLINE_ADMIN_TOKEN");
    expect(running.output()).not.toContain(TEST_TOKEN);
  });

  it("prints the token it generated and keeps in the data dir", async () => {
    const dir = tempDir(cleanup, "hookline-serve-");
    const running = await runHookline(cleanup, dir, { HOOKLINE_ADMIN_TOKEN: "" });
    const kept = readFileSync(join(dir, "admin-token"), "utf8").trim();
    expect(kept).toMatch(/^hl_admin_/);
    expect(running.output()).toContain(`Admin token:  ${kept}`);
  });
});
