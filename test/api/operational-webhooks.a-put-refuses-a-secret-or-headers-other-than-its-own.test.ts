/**
 * An operational webhook endpoint's `PUT` took a `secret` and `headers` in its body and dropped
 * both behind the 200, as an application's endpoint's did: a pager endpoint "given" its receiver's
 * secret or credential that way was sent hookline's own events signed and headed as before. The
 * rule is an application's endpoint's: the endpoint's own secret and headers sent back are fine,
 * others are a 422 naming the field and the call that changes it, and nothing is written.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { generateSecret } from "../../src/signing/secret.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

type Problem = { loc: (string | number)[]; msg: string };

let h: TestHookline;
const secret = generateSecret();
const headers = { "X-Team": "sre" };
const url = "http://127.0.0.1:9/ops";
const path = "/api/v1/operational-webhook/endpoint/pager";
beforeAll(async () => {
  h = await startHookline();
  await h.svix.operationalWebhookEndpoint.create({ url, uid: "pager", secret });
  await h.svix.operationalWebhookEndpoint.updateHeaders("pager", { headers });
});
afterAll(async () => h.stop());

const stored = async () => ({
  endpoint: await h.svix.operationalWebhookEndpoint.get("pager"),
  secret: (await h.svix.operationalWebhookEndpoint.getSecret("pager")).key,
  headers: await h.svix.operationalWebhookEndpoint.getHeaders("pager"),
});

it("takes its own secret and headers back", async () => {
  const res = await h.api<{ description: string }>("PUT", path, {
    url,
    description: "pager",
    secret,
    headers,
  });
  expect(res.status).toBe(200);
  expect(res.body.description).toBe("pager");
});

it("refuses another secret or other headers, naming each and the call, writing nothing", async () => {
  const before = await stored();
  const res = await h.api<{ detail: Problem[] }>("PUT", path, {
    url,
    description: "changed",
    secret: generateSecret(),
    headers: { "X-Team": "payments" },
  });
  expect(res.status).toBe(422);
  expect(res.body.detail.map((p) => p.loc)).toEqual([
    ["body", "secret"],
    ["body", "headers"],
  ]);
  expect(res.body.detail[0]!.msg).toContain(`POST ${path}/secret/rotate`);
  expect(res.body.detail[1]!.msg).toContain(`PUT ${path}/headers`);
  expect(await stored()).toEqual(before);
});

it("still serves the Svix client's update, which sends neither", async () => {
  const updated = await h.svix.operationalWebhookEndpoint.update("pager", {
    url,
    description: "x",
  });
  expect(updated.description).toBe("x");
  expect((await stored()).secret).toBe(secret);
});
