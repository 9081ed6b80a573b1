/**
 * An endpoint URL is checked when it is saved so that a URL no request can ever reach is a 422 on
 * `url`, not an endpoint whose every delivery fails: TCP port 0 cannot be connected to.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
let endpointId = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "ports" })).id;
  endpointId = (await api.svix.endpoint.create(appId, { url: "https://example.com/hook" })).id;
});
afterAll(async () => api.close());

const refusedOnUrl = async (res: Response) => {
  expect(res.status).toBe(422);
  const body = (await res.json()) as { detail: { loc: unknown[] }[] };
  expect(body.detail.map((p) => p.loc)).toContainEqual(["body", "url"]);
};

it("refuses port 0 on create, update and patch", async () => {
  const url = "https://example.com:0/hook";
  await refusedOnUrl(await api.call("POST", `/api/v1/app/${appId}/endpoint`, { url }));
  await refusedOnUrl(await api.call("PUT", `/api/v1/app/${appId}/endpoint/${endpointId}`, { url }));
  await refusedOnUrl(
    await api.call("PATCH", `/api/v1/app/${appId}/endpoint/${endpointId}`, { url }),
  );
  const list = await api.svix.endpoint.list(appId);
  expect(list.data.map((e) => e.url)).toEqual(["https://example.com/hook"]);
});
