/**
 * `throttleRate` is the newer Svix clients' name for `rateLimit`, and either is taken. A body with
 * both, set to different values, kept one and dropped the other without a word; it is refused
 * (422 naming body.throttleRate) and nothing changes. The same value under both names is taken.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
let endpointId = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "limits", rateLimit: 3 })).id;
  endpointId = (
    await api.svix.endpoint.create(appId, { url: "https://example.com/hook", rateLimit: 3 })
  ).id;
});
afterAll(async () => api.close());

const refusedOnThrottleRate = async (res: Response) => {
  expect(res.status).toBe(422);
  const body = (await res.json()) as { detail: { loc: unknown[]; msg: string }[] };
  expect(body.detail.map((p) => [p.loc.join("."), p.msg])).toEqual([
    [
      "body.throttleRate",
      "is another name for rateLimit, sent as 5: send one of them, or both the same",
    ],
  ]);
};

describe("rateLimit and throttleRate in one body", () => {
  it("are refused with other values on every write, and nothing changes", async () => {
    const both = { rateLimit: 5, throttleRate: 7 };
    const app = `/api/v1/app/${appId}`;
    const ep = `${app}/endpoint/${endpointId}`;
    const url = "https://example.com/hook";
    for (const [method, path, body] of [
      ["POST", "/api/v1/app", { name: "other", ...both }],
      ["PUT", app, { name: "limits", ...both }],
      ["PATCH", app, both],
      ["POST", `${app}/endpoint`, { url, ...both }],
      ["PUT", ep, { url, ...both }],
      ["PATCH", ep, both],
    ] as const) {
      await refusedOnThrottleRate(await api.call(method, path, body));
    }
    expect((await api.svix.application.list()).data.map((a) => [a.name, a.rateLimit])).toEqual([
      ["limits", 3],
    ]);
    const endpoints = await api.svix.endpoint.list(appId);
    expect(endpoints.data.map((e) => e.rateLimit)).toEqual([3]);
  });

  it("are taken with the same value", async () => {
    const res = await api.call("PATCH", `/api/v1/app/${appId}`, { rateLimit: 9, throttleRate: 9 });
    expect(res.status).toBe(200);
    expect((await api.svix.application.get(appId)).rateLimit).toBe(9);
  });
});
