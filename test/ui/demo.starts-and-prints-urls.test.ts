/**
 * `npm run demo` starts hookline, its misbehaving receiver and the event stream, prints working
 * console and portal URLs, and stops cleanly on Ctrl-C.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { expect, it } from "vitest";
import { cliEnv } from "../support/built-cli.js";

it("starts, prints the console and portal URLs, and stops on SIGINT", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo.ts"], {
    env: cliEnv({ HOOKLINE_PORT: "0", HOOKLINE_LOG_LEVEL: "silent" }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stderr.on("data", (b: Buffer) => (out += b.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
      if (out.includes("Press Ctrl-C")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`demo exited (${code}):\n${out}`)));
  });
  expect(out).toContain("HOOKLINE_ALLOW_PRIVATE_TARGETS=1");
  const consoleUrl = /Operator console: (\S+)/.exec(out)![1]!;
  const portalUrl = new URL(/Customer portal: {2}(\S+)/.exec(out)![1]!);
  expect((await fetch(consoleUrl)).status).toBe(200);
  const fragment = new URLSearchParams(portalUrl.hash.slice(1));
  const endpoints = await fetch(`${portalUrl.origin}/api/v1/app/${fragment.get("app")}/endpoint`, {
    headers: { authorization: `Bearer ${fragment.get("token")}` },
  });
  expect(((await endpoints.json()) as { data: unknown[] }).data).toHaveLength(4);

  child.kill("SIGINT");
  const [code] = (await once(child, "exit")) as [number | null];
  expect(code).toBe(0);
});
