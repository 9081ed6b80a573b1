/**
 * `hookline dlq replay-bulk --threshold` is a percentage of the canary that must succeed, from 0
 * (go on whatever the sample did) to 100; anything else is refused before a request is made.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";

let server: Server;
let url = "";
const bodies: Record<string, unknown>[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      bodies.push(JSON.parse(raw || "{}") as Record<string, unknown>);
      res.writeHead(202, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: "job_1", state: "scheduled" }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function replayBulk(threshold: string) {
  let err = "";
  const cmd = dlqCommand(
    { url, token: "hl_test_token_0123456789abcdef" },
    { out: { write: () => true }, now: () => 0, sleep: async () => {}, setExitCode: () => {} },
  );
  for (const c of [cmd, ...cmd.commands]) {
    c.exitOverride().configureOutput({ writeErr: (s) => (err += s) });
  }
  const run = cmd.parseAsync(["replay-bulk", "--detach", "--threshold", threshold], {
    from: "user",
  });
  return { run, err: () => err };
}

it("sends 0 % and 100 % as 0 and 1", async () => {
  await replayBulk("0").run;
  await replayBulk("100").run;
  expect(bodies.map((b) => b.canaryThreshold)).toEqual([0, 1]);
});

it.each(["-1", "150", "most"])("refuses %s without a request", async (value) => {
  const before = bodies.length;
  const { run, err } = replayBulk(value);
  await expect(run).rejects.toThrow(/--threshold/);
  expect(err()).toContain("must be a percentage from 0 to 100");
  expect(bodies).toHaveLength(before);
});
