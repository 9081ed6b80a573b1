/**
 * An operational endpoint took every field of an application's endpoint, as the OpenAPI document
 * said, but kept neither `channels` (no operational event has one), nor `version`, nor
 * `deliveryPolicy`: each was dropped behind a 201 or 200, so a pager endpoint given a patient
 * retry policy was sent with the default one, and nothing said so. Each is refused now, naming the
 * field and storing nothing; null (or no channels) is still taken.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { OPERATIONAL_APP_UID } from "../../src/observability/system-apps.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

const base = "/api/v1/operational-webhook/endpoint";
const NOT_KEPT = {
  channels: ["ops"],
  version: 2,
  deliveryPolicy: { retry: { preset: "manual" } },
} as const;

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => h.stop());

interface Refusal {
  code: string;
  detail: { loc: (string | number)[]; msg: string }[];
}

/** What is stored, read as the operational application's endpoint (it shows every field). */
async function stored(id: string) {
  const res = await h.api<Record<string, unknown>>(
    "GET",
    `/api/v1/app/${OPERATIONAL_APP_UID}/endpoint/${id}`,
  );
  return res.body;
}

it("refuses each on create, naming it, and registers nothing", async () => {
  for (const [field, value] of Object.entries(NOT_KEPT)) {
    const res = await h.api<Refusal>("POST", base, {
      url: "http://127.0.0.1:9/ops",
      [field]: value,
    });
    expect(res.status, field).toBe(422);
    expect(res.body.detail.map((p) => p.loc)).toEqual([["body", field]]);
    expect(res.body.detail[0]!.msg).toMatch(/^not taken by an operational webhook endpoint/);
  }
  expect((await h.svix.operationalWebhookEndpoint.list()).data).toEqual([]);

  const none = await h.api<{ id: string }>("POST", base, {
    url: "http://127.0.0.1:9/ops",
    channels: [],
    version: null,
    deliveryPolicy: null,
  });
  expect(none.status).toBe(201);
  await h.svix.operationalWebhookEndpoint.delete(none.body.id);
});

it("refuses each on update and keeps the endpoint as it was", async () => {
  const ep = await h.svix.operationalWebhookEndpoint.create({ url: "http://127.0.0.1:9/pager" });
  const before = await stored(ep.id);
  for (const [field, value] of Object.entries(NOT_KEPT)) {
    const res = await h.api<Refusal>("PUT", `${base}/${ep.id}`, {
      url: "http://127.0.0.1:9/pager-2",
      [field]: value,
    });
    expect(res.status, field).toBe(422);
    expect(res.body.detail.map((p) => p.loc)).toEqual([["body", field]]);
  }
  expect(await stored(ep.id)).toEqual(before);
});
