/**
 * A `PUT` of an endpoint that exists does not change its signing secret nor its custom headers:
 * those have calls of their own. A `secret` or `headers` in the body was dropped behind the 200,
 * so a deploy that put its receiver's new secret or credential there saw it taken and its receiver
 * refused everything. Now one equal to what the endpoint has is a read-back (a body built for the
 * create, sent again) and is fine; one that differs is a 422 naming the field and the call that
 * changes it, and nothing is written. The Svix client's update and patch, which send neither,
 * still work. On SQLite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecret } from "../../src/signing/secret.js";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";

type Problem = { loc: (string | number)[]; msg: string; type: string };
type Answer = { id: string; description: string; updatedAt: string; detail?: Problem[] };

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let t: TestHookline;
  let appId = "";
  const secret = generateSecret();
  const headers = { Authorization: "Bearer receiver-credential", "X-Tenant": "acme" };
  const url = "http://127.0.0.1:9/hook";
  beforeAll(async () => {
    t = await startHooklineOn(kind);
    appId = (await t.svix.application.create({ name: "Acme", uid: "acme" })).id;
    await t.svix.endpoint.create(appId, { url, uid: "main", secret });
    await t.svix.endpoint.updateHeaders(appId, "main", { headers });
  });
  afterAll(() => t.stop());

  const path = "/api/v1/app/acme/endpoint/main";
  const send = (method: "PUT" | "PATCH", body: unknown) => t.api<Answer>(method, path, body);
  /** The endpoint as stored: its settings, secret and headers. */
  const stored = async () => ({
    endpoint: await t.svix.endpoint.get(appId, "main"),
    secret: (await t.svix.endpoint.getSecret(appId, "main")).key,
    headers: (await t.api("GET", `${path}/headers`)).body,
  });

  it("takes its own secret and headers back on a PUT, with or without the prefix or the case", async () => {
    for (const [n, body] of [
      { url, description: "one", secret, headers },
      { url, description: "two", secret: secret.slice("whsec_".length) },
      {
        url,
        description: "three",
        headers: { "x-tenant": "acme", authorization: headers.Authorization },
      },
      { url, description: "four", secret: null, headers: null },
    ].entries()) {
      const res = await send("PUT", body);
      expect(res.status, `body ${n}`).toBe(200);
      expect(res.body.description).toBe(body.description);
    }
    const now = await stored();
    expect(now.secret).toBe(secret);
    expect(now.headers).toEqual({ headers: { "X-Tenant": "acme" }, sensitive: ["Authorization"] });
  });

  it("refuses another secret or other headers on a PUT, naming each and the call, writing nothing", async () => {
    const before = await stored();
    const res = await send("PUT", {
      url: "http://127.0.0.1:9/elsewhere",
      description: "changed",
      secret: generateSecret(),
      headers: { "X-Tenant": "globex" },
    });
    expect(res.status).toBe(422);
    const [onSecret, onHeaders, ...rest] = res.body.detail!;
    expect(rest).toEqual([]);
    expect(onSecret!.loc).toEqual(["body", "secret"]);
    expect(onSecret!.msg).toContain(`POST ${path}/secret/rotate`);
    expect(onHeaders!.loc).toEqual(["body", "headers"]);
    expect(onHeaders!.msg).toContain(`PUT ${path}/headers`);
    expect(await stored()).toEqual(before);

    for (const other of [{ headers: {} }, { headers: { ...headers, "X-More": "1" } }]) {
      const one = await send("PUT", { url, ...other });
      expect(one.status).toBe(422);
      expect(one.body.detail!.map((p) => p.loc)).toEqual([["body", "headers"]]);
    }
    expect(await stored()).toEqual(before);
  });

  it("still serves the Svix client's update and patch, which send neither", async () => {
    const updated = await t.svix.endpoint.update(appId, "main", { url, description: "by client" });
    expect(updated.description).toBe("by client");
    const patched = await t.svix.endpoint.patch(appId, "main", {
      description: "patched by client",
    });
    expect(patched.description).toBe("patched by client");
    const now = await stored();
    expect(now.secret).toBe(secret);
    expect(now.headers).toEqual({ headers: { "X-Tenant": "acme" }, sensitive: ["Authorization"] });
  });
});
