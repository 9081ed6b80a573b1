/**
 * `hookline dlq job <id>` (without --watch) shows what the API says of the job: its selection,
 * its progress as the replay-bulk bar draws it, and its state with the reason.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { runDlq, startFakeApi, type FakeApi } from "../support/fake-api.js";

const JOB = {
  id: "job_1",
  task: "dlq.replay",
  state: "running",
  stage: "rest",
  selection: { endpointId: "ep_1" },
  ratePerSecond: 5,
  canary: { size: 10, threshold: 0.9 },
  startAt: "2026-03-02T09:40:00.000Z",
  createdBy: "admin",
  note: "INC-1234",
  reason: "canary: 10 of 10 replays succeeded (100 %); replaying the rest",
  progress: {
    total: 412,
    queued: 135,
    succeeded: 128,
    failed: 2,
    skipped: 0,
    withdrawn: 0,
    waiting: 277,
    outstanding: 5,
  },
  createdAt: "2026-03-02T09:40:00.000Z",
  updatedAt: "2026-03-02T09:41:00.000Z",
  startedAt: "2026-03-02T09:40:00.000Z",
  finishedAt: null,
};

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(200, JOB);
});
afterAll(() => api.close());

it("prints the selection, the progress bar and the state with its reason", async () => {
  const out = await runDlq(api.url, ["job", "job_1"], Date.parse(JOB.updatedAt));
  expect(out.trimEnd().split("\n")).toEqual([
    "job_1: endpoint ep_1; 5/s, canary 10 at 90 %",
    "[=========---------------------] 130/412  ok 128  failed 2  skipped 0  rest  running",
    "running — canary: 10 of 10 replays succeeded (100 %); replaying the rest",
  ]);
});
