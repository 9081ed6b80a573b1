/**
 * `hookline dlq summary` with an endpoint whose records are all dealt with but some of whose dead
 * letters were never kept (the depth cap): its line has no class and no oldest age, and the
 * warning about the overflow is still given.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { runDlq, startFakeApi, type FakeApi } from "../support/fake-api.js";

const NOW = Date.parse("2026-03-02T10:00:00.000Z");

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(200, {
    generatedAt: new Date(NOW).toISOString(),
    data: [
      {
        appId: "app_1",
        endpointId: "ep_1",
        endpointUid: "billing",
        url: "https://acme.example/hooks",
        failureClass: null,
        open: 0,
        replaying: 0,
        oldestAt: null,
        oldestAgeSeconds: null,
        lastSuccessAt: "2026-03-02T09:00:00.000Z",
        circuit: { state: "closed", since: "2026-03-01T07:00:00.000Z", nextProbeAt: null },
        depth: 0,
        depthCap: 10,
        overflowed: 4,
        lastOverflowAt: "2026-03-02T08:00:00.000Z",
      },
    ],
  });
});
afterAll(() => api.close());

it("shows the endpoint with nothing open and no oldest age, and warns of its overflow", async () => {
  const out = await runDlq(api.url, ["summary"], NOW);
  const lines = out.trimEnd().split("\n");
  const row = lines.find((l) => l.startsWith("billing "));
  expect(row?.split(/\s{2,}/)).toEqual([
    "billing",
    "https://acme.example/hooks",
    "-",
    "0",
    "0",
    "-",
    "1h ago",
    "closed",
  ]);
  expect(lines.filter((l) => l.startsWith("!"))).toEqual([
    "! billing (ep_1): 4 dead letters not kept (depth cap 10); see GET /api/v1/dlq/overflow",
  ]);
});
