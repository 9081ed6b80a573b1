/**
 * `hookline dlq list | head` is how an operator glances at a long list. When the reader stops
 * early, the command must end quietly — not die on stdout's EPIPE with Node's "Unhandled 'error'
 * event" stack trace on the terminal.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startFakeApi, type FakeApi } from "../support/fake-api.js";
import { builtCommand } from "../support/built.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let api: FakeApi;
beforeAll(async () => {
  // Far more than a pipe holds, so most of it is still to be written when the reader leaves.
  const data = Array.from({ length: 5_000 }, (_, i) => ({
    id: `dlq_${String(i).padStart(26, "0")}`,
    state: "open",
    failureClass: "exhausted",
    endpointId: "ep_01M93CFBZNRZE65D4FDPW9TX0X",
    eventType: "invoice.failed",
    deadLetteredAt: "2026-03-02T09:40:00.000Z",
    replayCount: 0,
    finalStatus: 503,
    finalError: null,
  }));
  api = await startFakeApi(200, { data, iterator: null, done: true });
});
afterAll(() => api.close());

/** Runs `hookline <args>`, reads its first chunk of output, then closes the pipe as `head` does. */
function firstChunkOnly(
  args: string[],
): Promise<{ code: number | null; first: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCommand(), ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        HOOKLINE_URL: api.url,
        HOOKLINE_TOKEN: "hl_test_token_0123456789abcdef",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let first = "";
    let stderr = "";
    child.stdout.once("data", (chunk: Buffer) => {
      first = chunk.toString();
      child.stdout.destroy();
    });
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, first, stderr }));
  });
}

it("dlq list, as a table, stops without a word when its reader goes", async () => {
  const run = await firstChunkOnly(["dlq", "list"]);
  expect(run.first).toMatch(/^ID\s+STATE/);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
}, 30_000);

it("dlq list --json, too", async () => {
  const run = await firstChunkOnly(["dlq", "list", "--json"]);
  expect(run.first).toMatch(/^\{/);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
}, 30_000);
