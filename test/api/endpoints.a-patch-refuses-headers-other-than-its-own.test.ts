/**
 * A `PATCH` of an endpoint dropped `headers` in its body behind the 200 (Svix's EndpointPatch has
 * none), so a caller patching in its receiver's new credential saw it taken while deliveries went
 * on without it. As a PUT's: the endpoint's own headers sent back are taken, others are a 422
 * naming the field and the calls that change them, and nothing is written. A PATCH's secret is
 * still a rotation, as in Svix. On SQLite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecret } from "../../src/signing/secret.js";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";

type Problem = { loc: (string | number)[]; msg: string };
type Answer = { description: string; detail?: Problem[] };

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let t: TestHookline;
  let appId = "";
  const secret = generateSecret();
  const headers = { Authorization: "Bearer receiver-credential", "X-Tenant": "acme" };
  beforeAll(async () => {
    t = await startHooklineOn(kind);
    appId = (await t.svix.application.create({ name: "Acme", uid: "acme" })).id;
    await t.svix.endpoint.create(appId, { url: "http://127.0.0.1:9/hook", uid: "main", secret });
    await t.svix.endpoint.updateHeaders(appId, "main", { headers });
  });
  afterAll(() => t.stop());

  const path = "/api/v1/app/acme/endpoint/main";
  const patch = (body: unknown) => t.api<Answer>("PATCH", path, body);
  const stored = async () => ({
    endpoint: await t.svix.endpoint.get(appId, "main"),
    secret: (await t.svix.endpoint.getSecret(appId, "main")).key,
    headers: (await t.api("GET", `${path}/headers`)).body,
  });

  it("refuses other headers, naming the calls that change them, and writes nothing", async () => {
    const before = await stored();
    for (const other of [{ "X-Tenant": "globex" }, { "X-Tenant": "acme" }, {}]) {
      const res = await patch({ description: "patched", headers: other });
      expect(res.status).toBe(422);
      expect(res.body.detail!.map((p) => p.loc)).toEqual([["body", "headers"]]);
      expect(res.body.detail![0]!.msg).toContain(`PUT ${path}/headers`);
      expect(res.body.detail![0]!.msg).toContain(`PATCH ${path}/headers`);
    }
    expect(await stored()).toEqual(before);
  });

  it("takes its own headers back, in any case, or null", async () => {
    for (const own of [
      headers,
      { "x-tenant": "acme", authorization: headers.Authorization },
      null,
    ]) {
      const res = await patch({ description: "patched", headers: own });
      expect(res.status).toBe(200);
      expect(res.body.description).toBe("patched");
    }
    expect((await stored()).headers).toEqual({
      headers: { "X-Tenant": "acme" },
      sensitive: ["Authorization"],
    });
  });

  it("still rotates the secret a PATCH sends", async () => {
    const next = generateSecret();
    expect((await patch({ secret: next, headers })).status).toBe(200);
    expect((await stored()).secret).toBe(next);
  });
});
