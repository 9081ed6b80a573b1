import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, PATIENT_BREAKER, type RecordOut } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";
import { builtCommand } from "../support/built.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Runs the built `hookline …`, as an operator would, with the given environment. */
function hookline(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCommand(), ...args], {
      cwd: ROOT,
      env: { ...process.env, HOOKLINE_URL: "", HOOKLINE_TOKEN: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("hookline dlq, against a running hookline", () => {
  let h: TestHookline;
  let rx: Receiver;
  let env: Record<string, string>;
  let records: RecordOut[];
  let endpointId: string;
  beforeAll(async () => {
    h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    rx = await Receiver.start(() => ({ status: 503, body: "queue db is down, try later" }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    endpointId = ep.endpointId;
    records = await deadLetters(h, ep, 4);
    env = { HOOKLINE_URL: h.url, HOOKLINE_TOKEN: h.token };
  });
  afterAll(async () => {
    await h.stop();
    await rx.close();
  });

  it("summary --json prints the API's summary", async () => {
    const run = await hookline(["dlq", "summary", "--json"], env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { data: Record<string, unknown>[] };
    const api = await h.api<{ data: Record<string, unknown>[] }>("GET", "/api/v1/dlq/summary");
    // The age moves on between the two calls; everything else is the same answer.
    const steady = (rows: Record<string, unknown>[]) =>
      rows.map(({ oldestAgeSeconds: _age, ...rest }) => rest);
    expect(steady(printed.data)).toEqual(steady(api.body.data));
    expect(printed.data).toEqual([
      expect.objectContaining({ endpointId, failureClass: "exhausted", open: 4 }),
    ]);
  });

  it("list and show print tables for people; a failed replay exits with 2", async () => {
    const list = await hookline(["dlq", "list", "--endpoint", endpointId, "--state", "open"], env);
    expect(list.code).toBe(0);
    expect(list.stdout.split("\n")[0]).toMatch(/^ID\s+STATE\s+CLASS\s+ENDPOINT/);
    for (const r of records) expect(list.stdout).toContain(r.id);

    const show = await hookline(["dlq", "show", records[0]!.id], env);
    expect(show.stdout).toContain(`${records[0]!.id}  open  (exhausted:`);
    expect(show.stdout).toMatch(/attempts\nAT\s+TRIGGER\s+RESULT\s+MS\n\S+\s+first\s+HTTP 503/);
    // What the receiver answered is what an operator passes on to its owner (runbook, step 2).
    expect(show.stdout).toMatch(/HTTP 503\s+\d+\n\s+queue db is down, try later\n/);

    const failed = await hookline(["dlq", "replay", records[0]!.id, "--json"], env);
    expect(failed.code).toBe(2);
    expect(JSON.parse(failed.stdout)).toMatchObject({ result: "failed" });
  });

  it("replay, resolve and replay-bulk with its progress, once the receiver is back", async () => {
    rx.behave(() => ({ status: 200 }));
    const replay = await hookline(["dlq", "replay", records[1]!.id, "--note", "fixed"], env);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(/^succeeded: HTTP 200 in \d+ ms\n/);
    expect(replay.stdout).toContain(`${records[1]!.id} is resolved (replays: 1)`);

    const resolve = await hookline(
      ["dlq", "resolve", records[2]!.id, "--note", "customer confirmed by phone"],
      env,
    );
    expect(resolve.stdout.trim()).toBe(`${records[2]!.id} is resolved`);

    const bulk = await hookline(
      ["dlq", "replay-bulk", "--endpoint", endpointId, "--canary", "0", "--rate", "50"],
      env,
    );
    expect(bulk.stderr).toBe("");
    expect(bulk.code).toBe(0);
    const lines = bulk.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      /^job job_\w+: application app_\w+, endpoint ep_\w+; 50\/s, no canary$/,
    );
    expect(lines.at(-2)).toMatch(/^\[=+\] 2\/2 {2}ok 2 {2}failed 0 {2}skipped 0 {2}completed$/);
    expect(lines.at(-1)).toBe("completed: 2 selected: 2 delivered, 0 failed, 0 skipped");
  });

  it("refuses to run without a token, and says why an API call failed", async () => {
    const noToken = await hookline(["dlq", "summary"], { HOOKLINE_URL: h.url });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toBe("hookline: give the admin token (--token or HOOKLINE_TOKEN)\n");
    const missing = await hookline(["dlq", "show", "dlq_00000000000000000000000000"], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      "hookline: 404: dead-letter record dlq_00000000000000000000000000 not found\n",
    );
  });
});
