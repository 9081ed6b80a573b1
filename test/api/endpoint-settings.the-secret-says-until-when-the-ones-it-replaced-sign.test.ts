/**
 * After a rotation hookline signs with the new secret and, for a grace period, the one it
 * replaced: a receiver may see the old secret's signature until then. Nothing said until when:
 * the secret's answer was the key alone. It now says, as hookline's own `previousSecrets`, when
 * each replaced secret still signing stops (latest first; never their keys), for an endpoint and
 * an operational webhook endpoint alike; the Svix client reads the key as before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

interface SecretOut {
  key: string;
  previousSecrets: { signsUntil: string }[];
}

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => h.stop());

/** Rotates with `grace` seconds, and the times the rotation was made between. */
async function rotate(path: string, grace: number): Promise<[number, number]> {
  const before = Date.now();
  const { status } = await h.api("POST", `${path}/secret/rotate`, { gracePeriodSeconds: grace });
  expect(status).toBe(204);
  return [before, Date.now()];
}

const within = (iso: string, [from, to]: [number, number], graceSeconds: number) => {
  const at = Date.parse(iso);
  expect(at).toBeGreaterThanOrEqual(from + graceSeconds * 1000);
  expect(at).toBeLessThanOrEqual(to + graceSeconds * 1000);
};

describe("an endpoint's secret", () => {
  let appId: string;
  let epId: string;
  let path: string;

  beforeAll(async () => {
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: "https://example.com/hook" })).id;
    path = `/api/v1/app/${appId}/endpoint/${epId}`;
  });

  it("says no secret it replaced signs before any rotation", async () => {
    const { body } = await h.api<SecretOut>("GET", `${path}/secret`);
    expect(body.previousSecrets).toEqual([]);
  });

  it("says until when each secret it replaced signs, latest first, without their keys", async () => {
    const first = (await h.api<SecretOut>("GET", `${path}/secret`)).body.key;
    const day = await rotate(path, 86_400);
    const hour = await rotate(path, 3600);
    const { body } = await h.api<SecretOut>("GET", `${path}/secret`);
    expect(body.previousSecrets).toHaveLength(2);
    within(body.previousSecrets[0]!.signsUntil, day, 86_400);
    within(body.previousSecrets[1]!.signsUntil, hour, 3600);
    expect(JSON.stringify(body)).not.toContain(first.slice("whsec_".length));
    // The Svix client reads the key as ever.
    expect((await h.svix.endpoint.getSecret(appId, epId)).key).toBe(body.key);
  });

  it("leaves out a secret retired at once", async () => {
    await rotate(path, 0);
    const { body } = await h.api<SecretOut>("GET", `${path}/secret`);
    expect(body.previousSecrets).toHaveLength(2);
  });

  it("is described as hookline's own in the OpenAPI document", async () => {
    const doc = await h.api<{
      paths: Record<string, { get: { responses: Record<string, { content: unknown }> } }>;
    }>("GET", "/api/v1/openapi.json");
    const answer = doc.body.paths["/api/v1/app/{app_id}/endpoint/{endpoint_id}/secret"]!.get;
    type Schema = { properties: Record<string, Record<string, unknown>> };
    const schema = (answer.responses["200"]!.content as Record<string, { schema: Schema }>)[
      "application/json"
    ]!.schema;
    expect(schema.properties.previousSecrets).toMatchObject({ "x-hookline-extension": true });
    expect(schema.properties.key!["x-hookline-extension"]).toBeUndefined();
  });
});

describe("an operational webhook endpoint's secret", () => {
  it("says until when the secret it replaced signs", async () => {
    const ep = await h.svix.operationalWebhookEndpoint.create({ url: "https://example.com/ops" });
    const path = `/api/v1/operational-webhook/endpoint/${ep.id}`;
    const made = await rotate(path, 600);
    const { body } = await h.api<SecretOut>("GET", `${path}/secret`);
    expect(body.previousSecrets).toHaveLength(1);
    within(body.previousSecrets[0]!.signsUntil, made, 600);
    expect((await h.svix.operationalWebhookEndpoint.getSecret(ep.id)).key).toBe(body.key);
  });
});
