/**
 * A rotation to the secret the endpoint already has (a deploy that applies the same key again)
 * replaces nothing: it must not put the secret beside itself in grace, which sent its signature
 * twice on every request and, the fifth time, left every real rotation refused for a day.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_SECRETS_IN_GRACE } from "../../src/api/secret-rotation.js";
import { generateSecret } from "../../src/signing/secret.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => h.stop());

it("keeps the secrets as they are, however often it is asked, and later rotations are taken", async () => {
  const app = await h.svix.application.create({ name: "Same key" });
  const key = generateSecret();
  const ep = await h.svix.endpoint.create(app.id, { url: "https://example.com/same", secret: key });
  for (let i = 0; i <= MAX_SECRETS_IN_GRACE; i++) {
    await h.svix.endpoint.rotateSecret(app.id, ep.id, { key });
  }
  expect((await h.hookline.store.getEndpoint(ep.id))?.secrets).toEqual({
    current: key,
    previous: [],
  });
  await h.svix.endpoint.rotateSecret(app.id, ep.id, {});
  const after = await h.hookline.store.getEndpoint(ep.id);
  expect(after?.secrets.previous.map((p) => p.secret)).toEqual([key]);
});
