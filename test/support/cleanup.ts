/** What a test opened or made, undone after it, last first. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

/** Steps to run after the test, last registered first. */
export type Cleanup = (() => Promise<void>)[];

/**
 * A {@link Cleanup} run after each test of the file, or of the `describe` it is called in: last
 * registered first, so that what was opened on something closes before that thing goes.
 * `ignoreFailures` is for tests that cut the server away on purpose, where closing may fail;
 * `timeoutMs` for steps that may wait longer than the suite's hook timeout (see `aDatabase`).
 */
export function useCleanup(
  options: { ignoreFailures?: boolean; timeoutMs?: number } = {},
): Cleanup {
  const cleanup: Cleanup = [];
  afterEach(async () => {
    // Each step leaves the list before it runs, so one that fails is not run again.
    while (cleanup.length) {
      const step = cleanup.pop()!;
      if (options.ignoreFailures) await step().catch(() => undefined);
      else await step();
    }
  }, options.timeoutMs);
  return cleanup;
}

/** A fresh directory in the system's temp dir, its name starting `prefix`, removed by `cleanup`. */
export function tempDir(cleanup: Cleanup, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
