/**
 * `hookline dlq summary` lists open records by endpoint and failure class; the warning that an
 * endpoint reached its depth cap is about the endpoint, so it is said once per endpoint (by the
 * name its table line shows, and its id), however many failure classes it has open records of.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { runDlq, startFakeApi, type FakeApi } from "../support/fake-api.js";

const NOW = Date.parse("2026-03-02T10:00:00.000Z");

const group = (failureClass: string, open: number) => ({
  appId: "app_1",
  endpointId: "ep_1",
  endpointUid: "billing",
  url: "https://acme.example/hooks",
  failureClass,
  open,
  replaying: 0,
  oldestAt: "2026-03-02T07:00:00.000Z",
  oldestAgeSeconds: 3 * 3600,
  lastSuccessAt: null,
  circuit: { state: "open", since: "2026-03-02T07:00:00.000Z", nextProbeAt: null },
  depth: 10,
  depthCap: 10,
  overflowed: 4,
  lastOverflowAt: "2026-03-02T09:00:00.000Z",
});

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(200, {
    generatedAt: new Date(NOW).toISOString(),
    data: [group("exhausted", 7), group("permanent", 3)],
  });
});
afterAll(() => api.close());

it("warns once about an endpoint at its depth cap with records of two failure classes", async () => {
  const out = await runDlq(api.url, ["summary"], NOW);
  const lines = out.trimEnd().split("\n");
  expect(lines.filter((l) => l.startsWith("billing "))).toHaveLength(2);
  expect(lines.filter((l) => l.startsWith("!"))).toEqual([
    "! billing (ep_1): 4 dead letters not kept (depth cap 10); see GET /api/v1/dlq/overflow",
  ]);
});
