import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/built-cli.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER, type RecordOut } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

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
    const run = await runCli(["dlq", "summary", "--json"], env);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.out) as { data: Record<string, unknown>[] };
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
    const list = await runCli(["dlq", "list", "--endpoint", endpointId, "--state", "open"], env);
    expect(list.code).toBe(0);
    expect(list.out.split("\n")[0]).toMatch(/^ID\s+STATE\s+CLASS\s+ENDPOINT/);
    for (const r of records) expect(list.out).toContain(r.id);

    const show = await runCli(["dlq", "show", records[0]!.id], env);
    expect(show.out).toContain(`${records[0]!.id}  open  (exhausted:`);
    expect(show.out).toMatch(/attempts\nAT\s+TRIGGER\s+RESULT\s+MS\n\S+\s+first\s+HTTP 503/);
    // What the receiver answered is what an operator passes on to its owner (runbook, step 2).
    expect(show.out).toMatch(/HTTP 503\s+\d+\n\s+queue db is down, try later\n/);

    const failed = await runCli(["dlq", "replay", records[0]!.id, "--json"], env);
    expect(failed.code).toBe(2);
    expect(JSON.parse(failed.out)).toMatchObject({ result: "failed" });
  });

  it("replay, resolve and replay-bulk with its progress, once the receiver is back", async () => {
    rx.behave(() => ({ status: 200 }));
    const replay = await runCli(["dlq", "replay", records[1]!.id, "--note", "fixed"], env);
    expect(replay.code).toBe(0);
    expect(replay.out).toMatch(/^succeeded: HTTP 200 in \d+ ms\n/);
    expect(replay.out).toContain(`${records[1]!.id} is resolved (replays: 1)`);

    const resolve = await runCli(
      ["dlq", "resolve", records[2]!.id, "--note", "customer confirmed by phone"],
      env,
    );
    expect(resolve.out.trim()).toBe(`${records[2]!.id} is resolved`);

    const bulk = await runCli(
      ["dlq", "replay-bulk", "--endpoint", endpointId, "--canary", "0", "--rate", "50"],
      env,
    );
    expect(bulk.err).toBe("");
    expect(bulk.code).toBe(0);
    const lines = bulk.out.trim().split("\n");
    expect(lines[0]).toMatch(
      /^job job_\w+: application app_\w+, endpoint ep_\w+; 50\/s, no canary$/,
    );
    expect(lines.at(-2)).toMatch(/^\[=+\] 2\/2 {2}ok 2 {2}failed 0 {2}skipped 0 {2}completed$/);
    expect(lines.at(-1)).toBe("completed: 2 selected: 2 delivered, 0 failed, 0 skipped");
  });

  it("refuses to run without a token, and says why an API call failed", async () => {
    const noToken = await runCli(["dlq", "summary"], { HOOKLINE_URL: h.url });
    expect(noToken.code).toBe(1);
    expect(noToken.err).toBe("hookline: give the admin token (--token or HOOKLINE_TOKEN)\n");
    const missing = await runCli(["dlq", "show", "dlq_00000000000000000000000000"], env);
    expect(missing.code).toBe(1);
    expect(missing.err).toBe(
      "hookline: 404: dead-letter record dlq_00000000000000000000000000 not found\n",
    );
  });
});
