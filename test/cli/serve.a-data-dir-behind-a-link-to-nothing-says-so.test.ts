/**
 * A data dir reached through a symbolic link to a place that is not there (the link to a disk
 * that is not mounted, /var/lib/hookline -> /mnt/data/hookline) stopped start-up with Node's
 * "ENOENT: no such file or directory, mkdir '/var/lib/hookline'": the operator looks, sees the
 * link is there, and cannot tell what hookline missed. It names the link and where it points.
 */
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { spawnServe, stopAfter } from "../support/process.js";

const cleanup = useCleanup();

describe("a data dir behind a symbolic link to nothing", () => {
  // The token is made before the database, with one to keep (none set) and without.
  for (const [what, below, adminTokens] of [
    ["is", "", ["", "hl_test_token_0123456789abcdef"]],
    ["is below", "hookline", [""]],
  ] as const) {
    it(`stops start-up naming the link when the data dir ${what} it`, async () => {
      const root = tempDir(cleanup, "hookline-link-");
      const link = join(root, "data");
      const target = join(root, "not-mounted", "hookline");
      symlinkSync(target, link);
      const dataDir = below ? join(link, below) : link;
      for (const adminToken of adminTokens) {
        const { exited, output } = stopAfter(
          cleanup,
          spawnServe(dataDir, {
            HOOKLINE_ADMIN_TOKEN: adminToken,
            HOOKLINE_LOG_LEVEL: "silent",
            HOOKLINE_SENDER_THREADS: "0",
          }),
        );
        expect(await exited, output()).toBe(1);
        expect(output().trim()).toBe(
          `hookline: HOOKLINE_DATA_DIR ${dataDir} cannot be used: ${link} is a symbolic link to ${target}, which does not exist`,
        );
      }
    }, 30_000);
  }
});
