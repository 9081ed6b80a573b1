/**
 * A custom header named `svix-…` is refused, as Svix refuses it. Receivers verifying with the
 * `svix` library read `svix-id`, `svix-timestamp` and `svix-signature` before the `webhook-*`
 * headers hookline signs with, so a custom `svix-signature` made every request fail their check.
 */
import { ApiException } from "svix";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
let epId = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "svix headers" })).id;
  epId = (await api.svix.endpoint.create(appId, { url: "https://example.com/a" })).id;
});
afterAll(async () => api.close());

interface Problem {
  loc: string[];
  type: string;
}

async function refused(call: () => Promise<unknown>): Promise<Problem[]> {
  const err = await call().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiException);
  const ex = err as ApiException<{ detail: Problem[] }>;
  expect(ex.code).toBe(422);
  return ex.body.detail;
}

describe("custom headers named svix-… are refused", () => {
  const headers = { "Svix-Signature": "v1,forged", "svix-id": "msg_other" };
  const named = [
    { loc: ["body", "headers", "Svix-Signature"], type: "header_reserved" },
    { loc: ["body", "headers", "svix-id"], type: "header_reserved" },
  ];

  it("when an endpoint is created", async () => {
    const ps = await refused(() =>
      api.svix.endpoint.create(appId, { url: "https://example.com/b", headers }),
    );
    expect(ps).toMatchObject(named);
  });

  it("when the headers are replaced or patched, and nothing is stored", async () => {
    expect(
      await refused(() => api.svix.endpoint.updateHeaders(appId, epId, { headers })),
    ).toMatchObject(named);
    expect(
      await refused(() => api.svix.endpoint.patchHeaders(appId, epId, { headers })),
    ).toMatchObject(named);
    expect((await api.svix.endpoint.getHeaders(appId, epId)).headers).toEqual({});
  });

  it("a name merely containing svix is still taken", async () => {
    await api.svix.endpoint.updateHeaders(appId, epId, { headers: { "x-from-svix": "yes" } });
    expect((await api.svix.endpoint.getHeaders(appId, epId)).headers).toEqual({
      "x-from-svix": "yes",
    });
  });
});

it("one kept from before such names were refused can still be removed by a patch", async () => {
  const ep = await api.svix.endpoint.create(appId, { url: "https://example.com/c" });
  const stored = (await api.store.getEndpoint(ep.id))!;
  const headers = { "svix-signature": "v1,stale", "svix-id": "msg_x", "x-keep": "1" };
  await api.store.updateEndpoint({ ...stored, headers });
  const path = `/api/v1/app/${appId}/endpoint/${ep.id}/headers`;
  const res = await api.call("PATCH", path, { headers: { "svix-signature": null } });
  expect(res.status).toBe(204);
  await api.svix.endpoint.patchHeaders(appId, ep.id, { headers: {}, deleteHeaders: ["svix-id"] });
  expect((await api.store.getEndpoint(ep.id))?.headers).toEqual({ "x-keep": "1" });
});
