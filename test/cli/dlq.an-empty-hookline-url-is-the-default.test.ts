/**
 * `hookline dlq …` reads HOOKLINE_URL, defaulting to http://127.0.0.1:8080
 * (docs/configuration.md). Set but empty (`HOOKLINE_URL=` in an env file, or `-e HOOKLINE_URL`
 * from an unset variable) it is unset, as every empty HOOKLINE_* setting is — not a URL of
 * nothing, which fails with "cannot reach hookline at " naming neither a URL nor the variable.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { TEST_TOKEN } from "../support/process.js";
import { builtCommand } from "../support/built.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

function dlq(
  env: Record<string, string>,
  args: string[],
): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [builtCommand(), "dlq", ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, err })));
}

it("an empty HOOKLINE_URL is the default URL", async () => {
  const { code, err } = await dlq({ HOOKLINE_URL: "", HOOKLINE_TOKEN: TEST_TOKEN }, ["summary"]);
  // Whether or not a hookline answers on the default port, the command went there.
  if (code !== 0) expect(err).toMatch(/127\.0\.0\.1:8080|HOOKLINE_URL/);
  expect(err).not.toMatch(/cannot reach hookline at\s*$/m);
}, 30_000);
