/**
 * `npm run demo` on a port already taken (8080, its default, often is) says so and exits; it must
 * not leave its data dir (a database and an admin token) in the temp dir for each try.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync } from "node:fs";
import { createServer } from "node:net";
import { expect, it } from "vitest";
import { cliEnv } from "../support/built-cli.js";
import { tempDir, useCleanup } from "../support/cleanup.js";

const cleanup = useCleanup();

it("exits on a port in use without leaving its data dir behind", async () => {
  const tmp = tempDir(cleanup, "hookline-demo-test-");
  const taken = createServer();
  cleanup.push(() => new Promise((r) => taken.close(() => r())));
  await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
  const port = (taken.address() as { port: number }).port;
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo.ts"], {
    env: cliEnv({ HOOKLINE_PORT: String(port), HOOKLINE_LOG_LEVEL: "silent", TMPDIR: tmp }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr.on("data", (b: Buffer) => (out += b.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  expect(code, out).toBe(1);
  expect(out).toMatch(/in use/);
  expect(readdirSync(tmp).filter((d) => d.startsWith("hookline-demo-"))).toEqual([]);
});
