/**
 * `PUT …/endpoint/{endpoint_id}` naming no endpoint creates it as `POST …/endpoint` would, and
 * that includes the body's `secret` and `headers`. Both were dropped behind the 201: the endpoint
 * signed with a secret hookline made, so the receiver, holding the secret it had been given,
 * refused every delivery, and its custom headers (often the receiver's own credential) were never
 * sent. Now they are taken with the POST's checks (each problem named, nothing created), sealed at
 * rest as a POST's are, on SQLite and on PostgreSQL; the same PUT sent again is a read-back (200).
 */
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecret } from "../../src/signing/secret.js";
import { deliveryOf, startHooklineOn, type TestHookline } from "../support/hookline.js";
import { adminQuery } from "../support/postgres.js";
import { rawFiles } from "../support/raw-stores.js";
import { Receiver } from "../support/receiver.js";

const CREDENTIAL = "Bearer receiver-credential-5d81";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let t: TestHookline;
  let rx: Receiver;
  let appId = "";
  beforeAll(async () => {
    t = await startHooklineOn(kind, {
      HOOKLINE_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    });
    rx = await Receiver.start();
    appId = (await t.svix.application.create({ name: "Acme", uid: "acme" })).id;
  });
  afterAll(async () => {
    await t.stop();
    await rx.close();
  });

  type Answer = { id: string; uid: string | null; code?: string; detail?: Problem[] };
  type Problem = { loc: (string | number)[]; msg: string; type: string };
  const put = (endpoint: string, body: unknown) =>
    t.api<Answer>("PUT", `/api/v1/app/acme/endpoint/${endpoint}`, body);
  const endpointsAt = async (path: string) =>
    (await t.svix.endpoint.list(appId, { limit: 250 })).data.filter((e) => e.url === rx.url(path));
  /** Every stored byte that may hold a secret or a header, as someone with the database reads it. */
  const rawStore = async () =>
    kind === "sqlite"
      ? rawFiles(t.dataDir)
      : JSON.stringify(
          await adminQuery(
            `SELECT secrets::text, headers::text FROM ${t.hookline.config.pgSchema}.endpoints`,
          ),
        );

  it("signs with the body's secret and sends its headers, both sealed at rest", async () => {
    const secret = generateSecret();
    const made = await put("billing", {
      url: rx.url("/billing"),
      secret,
      headers: { Authorization: CREDENTIAL, "X-Tenant": "acme" },
    });
    expect(made.status).toBe(201);
    expect(made.body.uid).toBe("billing");
    expect((await t.svix.endpoint.getSecret(appId, "billing")).key).toBe(secret);
    expect(await t.svix.endpoint.getHeaders(appId, "billing")).toEqual({
      headers: { "X-Tenant": "acme" },
      sensitive: ["Authorization"],
    });

    const msg = await t.svix.message.create(appId, {
      eventType: "invoice.paid",
      payload: { n: 1 },
    });
    await t.waitFor(deliveryOf(msg.id, "succeeded", made.body.id));
    const [req] = rx.on("/billing");
    expect(req!.headers.authorization).toBe(CREDENTIAL);
    expect(req!.headers["x-tenant"]).toBe("acme");
    const verified = new Webhook(secret).verify(req!.body.toString(), {
      "webhook-id": req!.headers["webhook-id"]!,
      "webhook-timestamp": req!.headers["webhook-timestamp"]!,
      "webhook-signature": req!.headers["webhook-signature"]!,
    });
    expect(verified).toEqual({ n: 1 });

    const raw = await rawStore();
    expect(raw).not.toContain(secret.slice("whsec_".length));
    expect(raw).not.toContain(CREDENTIAL);
  });

  it("takes a secret without its whsec_ prefix, as a POST does", async () => {
    const secret = generateSecret();
    const made = await put("bare", { url: rx.url("/bare"), secret: secret.slice(6) });
    expect(made.status).toBe(201);
    expect((await t.svix.endpoint.getSecret(appId, "bare")).key).toBe(secret);
  });

  it("makes a secret and sends no header when the body's are null or left out", async () => {
    for (const [name, body] of [
      ["nulls", { url: rx.url("/nulls"), secret: null, headers: null }],
      ["absent", { url: rx.url("/absent") }],
    ] as const) {
      expect((await put(name, body)).status, name).toBe(201);
      expect((await t.svix.endpoint.getSecret(appId, name)).key).toMatch(/^whsec_/);
      expect(await t.svix.endpoint.getHeaders(appId, name)).toEqual({ headers: {}, sensitive: [] });
    }
  });

  it("refuses a bad secret and bad headers as a POST does, naming each, and creates nothing", async () => {
    const body = {
      url: rx.url("/refused"),
      secret: "whsec_not-base64!",
      headers: { "Content-Type": "text/plain", "webhook-id": "x", "X-Ok": "line\nbreak" },
    };
    const byPost = await t.api<Answer>("POST", `/api/v1/app/acme/endpoint`, body);
    const byPut = await put("refused", body);
    expect(byPut.status).toBe(422);
    expect(byPut.body.detail).toEqual(byPost.body.detail);
    expect(byPut.body.detail!.map((p) => p.loc)).toEqual([
      ["body", "secret"],
      ["body", "headers", "Content-Type"],
      ["body", "headers", "webhook-id"],
      ["body", "headers", "X-Ok"],
    ]);
    expect(await endpointsAt("/refused")).toEqual([]);
  });

  it("answers the same PUT sent again 200: its secret and headers are what it has", async () => {
    const secret = generateSecret();
    const body = { url: rx.url("/again"), secret, headers: { "X-Tenant": "acme" } };
    const first = await put("again", body);
    expect(first.status).toBe(201);
    const second = await put("again", { ...body, headers: { "x-tenant": "acme" } });
    expect(second.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
    expect((await t.svix.endpoint.getSecret(appId, "again")).key).toBe(secret);
    expect((await endpointsAt("/again")).map((e) => e.id)).toEqual([first.body.id]);
  });
});
