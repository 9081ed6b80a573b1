/**
 * `hookline dlq list | head` is how an operator glances at a long list. When the reader stops
 * early, the command must end quietly — not die on stdout's EPIPE with Node's "Unhandled 'error'
 * event" stack trace on the terminal.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { spawnCli } from "../support/built-cli.js";
import { startFakeApi, type FakeApi } from "../support/fake-api.js";
import { TEST_TOKEN } from "../support/process.js";

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
async function firstChunkOnly(
  args: string[],
): Promise<{ code: number | string; first: string; stderr: string }> {
  const run = spawnCli(args, { HOOKLINE_URL: api.url, HOOKLINE_TOKEN: TEST_TOKEN });
  run.child.stdout!.once("data", () => run.child.stdout!.destroy());
  const code = await run.exited;
  return { code, first: run.out(), stderr: run.err() };
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
