/**
 * A misspelt setting is often why start-up failed: with HOOKLINE_PROT for HOOKLINE_PORT, hookline
 * tries the default port, and it is in use. serve warned of the misspelling only once started, so
 * the failure came alone, naming HOOKLINE_PORT the operator believed set. The warning now comes
 * with the failure; also when a setting's value is what was refused, which stopped start-up
 * before the misspelt variables were worked out (HOOKLINE_DATABASE_URL for DATABASE_URL, and
 * `--role worker` refused for want of a database).
 */
import { createServer } from "node:net";
import { expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { spawnServe } from "../support/process.js";

const cleanup = useCleanup();

it("warns of the misspelt setting beside the failure it led to", async () => {
  const dir = tempDir(cleanup, "hookline-start-");
  const server = createServer();
  cleanup.push(() => new Promise((r) => server.close(() => r())));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const taken = (server.address() as { port: number }).port;
  const { exited, output } = spawnServe(dir, {
    HOOKLINE_PORT: String(taken),
    HOOKLINE_PROT: "9000",
    HOOKLINE_LOG_LEVEL: "silent",
    HOOKLINE_SENDER_THREADS: "0",
  });
  expect(await exited, output()).toBe(1);
  expect(output()).toContain(
    "hookline: WARNING: HOOKLINE_PROT is not a hookline setting (did you mean HOOKLINE_PORT?); it is ignored\n",
  );
  expect(output()).toMatch(/^hookline: HOOKLINE_PORT \d+ is in use/m);
});

it("warns of the misspelt setting when another setting is refused", async () => {
  const dir = tempDir(cleanup, "hookline-start-");
  const { exited, output } = spawnServe(dir, {
    HOOKLINE_ROLE: "worker",
    HOOKLINE_DATABASE_URL: "postgres://127.0.0.1/test",
    HOOKLINE_RETENTION_DAYS: "7",
    HOOKLINE_LOG_LEVEL: "silent",
  });
  expect(await exited, output()).toBe(1);
  expect(output()).toMatch(/^hookline: HOOKLINE_ROLE \(--role\) worker needs DATABASE_URL/m);
  expect(output()).toContain(
    "hookline: WARNING: HOOKLINE_DATABASE_URL is not a hookline setting (did you mean DATABASE_URL?); it is ignored\n",
  );
  // A setting given correctly is not taken for an unknown one.
  expect(output()).not.toContain("HOOKLINE_RETENTION_DAYS is not");
});
