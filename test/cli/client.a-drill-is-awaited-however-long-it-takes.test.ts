/**
 * `hookline drill` waits for the drill's answer however long the drill takes. fetch gives up on
 * an answer after 300 s, and a failing drill with `HOOKLINE_DRILL_STEP_TIMEOUT_SECONDS` at 300
 * or more ended as "cannot reach hookline …: Headers Timeout Error" instead of FAILED. The CLI's
 * client takes its wait as a setting: shortened here to show it is the one in force, and none
 * for the drill.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiClient } from "../../src/cli/client.js";
import { drillCommand } from "../../src/cli/drill.js";

const SLOW_MS = 1_500;
const RUN = {
  id: "drill_1",
  trigger: "manual",
  startedAt: new Date(0).toISOString(),
  finishedAt: new Date(SLOW_MS).toISOString(),
  durationMs: SLOW_MS,
  passed: false,
  steps: [{ name: "retries fire", passed: false, ms: SLOW_MS, detail: "no retry" }],
};

let server: Server;
let url = "";
beforeAll(async () => {
  // Answers every request after SLOW_MS, as a hookline busy with a long drill would.
  server = createServer((_req, res) => {
    setTimeout(() => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(RUN));
    }, SLOW_MS);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

it("gives up after the wait it was given, and waits without one", async () => {
  const hasty = new ApiClient({ url, token: "t" }, {}, 300);
  await expect(hasty.post("/api/v1/drill")).rejects.toThrow(/cannot reach hookline.*[Tt]imeout/);
  const patient = new ApiClient({ url, token: "t" }, {}, null);
  expect((await patient.post<{ id: string }>("/api/v1/drill")).body.id).toBe("drill_1");
});

it("prints a slow drill's steps and FAILED, exiting 1", async () => {
  let out = "";
  let code = 0;
  const io = {
    out: { write: (s: string) => (out += s) },
    now: () => Date.now(),
    sleep: async () => {},
    setExitCode: (c: number) => (code = c),
  };
  await drillCommand({ url, token: "t" }, io).parseAsync([], { from: "user" });
  expect(out).toContain("FAIL  retries fire");
  expect(out).toContain("drill drill_1 FAILED");
  expect(code).toBe(1);
});
