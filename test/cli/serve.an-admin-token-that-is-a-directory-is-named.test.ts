/**
 * A container started with the admin token's file mounted (`-v ./admin-token:/data/admin-token`)
 * before that file existed on the host gets a directory of that name: Docker makes one. hookline
 * stopped with "HOOKLINE_DATA_DIR … cannot be used: EISDIR: illegal operation on a directory,
 * read", naming neither the token nor what to do. It names the path and what to do, as for a
 * kept token it cannot use.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { spawnServe, stopAfter } from "../support/process.js";

const cleanup = useCleanup();

it("stops start-up naming the directory where the token should be", async () => {
  const dataDir = tempDir(cleanup, "hookline-token-");
  const file = join(dataDir, "admin-token");
  mkdirSync(file);
  const { exited, output } = stopAfter(
    cleanup,
    spawnServe(dataDir, {
      HOOKLINE_ADMIN_TOKEN: "",
      HOOKLINE_LOG_LEVEL: "silent",
      HOOKLINE_SENDER_THREADS: "0",
    }),
  );
  expect(await exited, output()).toBe(1);
  expect(output().trim()).toBe(
    `hookline: ${file} must hold the admin token, but it is a directory (a mount of a file that did not exist makes one): remove it to have a new token generated, or set HOOKLINE_ADMIN_TOKEN`,
  );
}, 30_000);
