/**
 * A misspelt setting is often why start-up failed: with HOOKLINE_PROT for HOOKLINE_PORT, hookline
 * tries the default port, and it is in use. serve warned of the misspelling only once started, so
 * the failure came alone, naming HOOKLINE_PORT the operator believed set. The warning now comes
 * with the failure.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { spawnServe } from "../support/process.js";

let dir = "";
let server: Server | null = null;
afterEach(async () => {
  rmSync(dir, { recursive: true, force: true });
  await new Promise((r) => server?.close(r));
});

it("warns of the misspelt setting beside the failure it led to", async () => {
  dir = mkdtempSync(join(tmpdir(), "hookline-start-"));
  server = createServer();
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
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
