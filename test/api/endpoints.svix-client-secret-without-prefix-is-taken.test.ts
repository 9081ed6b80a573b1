/**
 * The Svix client documents an endpoint's secret as "base64 encoded random bytes optionally
 * prefixed with `whsec_`". A secret sent without the prefix is the same key: it is taken on
 * create, patch and rotate (an operational webhook endpoint's too), answered with the prefix,
 * and signs with the key its base64 spells. A malformed one is still refused, naming the field.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSecret } from "../../src/signing/secret.js";
import { startHookline } from "../support/hookline.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "secrets" })).id;
});
afterAll(async () => api.close());

const bare = () => randomBytes(32).toString("base64");

describe("an endpoint secret sent without its whsec_ prefix", () => {
  it("is taken on create, patch and rotate, and answered with the prefix", async () => {
    const first = bare();
    const ep = await api.svix.endpoint.create(appId, {
      url: "https://example.com/a",
      secret: first,
    });
    expect((await api.svix.endpoint.getSecret(appId, ep.id)).key).toBe(`whsec_${first}`);

    const patched = bare();
    await api.svix.endpoint.patch(appId, ep.id, { secret: patched });
    expect((await api.svix.endpoint.getSecret(appId, ep.id)).key).toBe(`whsec_${patched}`);

    const rotated = bare();
    await api.svix.endpoint.rotateSecret(appId, ep.id, { key: rotated });
    expect((await api.svix.endpoint.getSecret(appId, ep.id)).key).toBe(`whsec_${rotated}`);
    const stored = await api.store.getEndpoint(ep.id);
    expect(stored?.secrets.previous.map((p) => p.secret)).toEqual([
      `whsec_${patched}`,
      `whsec_${first}`,
    ]);
  });

  it("signs with the key its base64 spells", async () => {
    const key = randomBytes(32);
    const ep = await api.svix.endpoint.create(appId, {
      url: "https://example.com/b",
      secret: key.toString("base64"),
    });
    const stored = (await api.svix.endpoint.getSecret(appId, ep.id)).key;
    expect(parseSecret(stored)).toEqual(key);
  });

  it("is still refused when it is not base64 of a key hookline takes", async () => {
    for (const secret of ["not base64!", "c2hvcnQ=", ""]) {
      const res = await api.call("POST", `/api/v1/app/${appId}/endpoint`, {
        url: "https://example.com/c",
        secret,
      });
      expect(res.status, secret).toBe(422);
      const body = (await res.json()) as { detail: { loc: unknown[] }[] };
      expect(body.detail.map((p) => p.loc)).toContainEqual(["body", "secret"]);
    }
  });
});

describe("an operational webhook endpoint's secret sent without its whsec_ prefix", () => {
  it("is taken and answered with the prefix", async () => {
    const h = await startHookline();
    try {
      const secret = bare();
      const ep = await h.svix.operationalWebhookEndpoint.create({
        url: "https://example.com/ops",
        secret,
      });
      const { key } = await h.svix.operationalWebhookEndpoint.getSecret(ep.id);
      expect(key).toBe(`whsec_${secret}`);
    } finally {
      await h.stop();
    }
  });
});
