/**
 * Rotating back to a secret that still signs in its grace period (A → B → A) makes it the current
 * secret and nothing else: it was also kept in grace, so every request carried its signature
 * twice and it held a place among the five. Worse, a later rotation with `gracePeriodSeconds: 0`,
 * the one for a leaked secret, left that copy signing for the rest of its grace period.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_SECRETS_IN_GRACE } from "../../src/api/secret-rotation.js";
import { generateSecret } from "../../src/signing/secret.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver, type Received } from "../support/receiver.js";

let h: TestHookline;
let receiver: Receiver;
beforeAll(async () => {
  h = await startHookline();
  receiver = await Receiver.start();
});
afterAll(async () => {
  await h.stop();
  await receiver.close();
});

/** Posts a message and answers the request the endpoint received for it. */
async function delivered(appId: string, path: string): Promise<Received> {
  const before = receiver.on(path).length;
  await h.svix.message.create(appId, { eventType: "invoice.paid", payload: { n: before } });
  await receiver.waitFor(before + 1, path);
  return receiver.on(path)[before]!;
}

const signatures = (r: Received) => r.headers["webhook-signature"]!.split(" ");
const verifies = (secret: string, r: Received) => {
  try {
    new Webhook(secret).verify(r.body.toString("utf8"), r.headers);
    return true;
  } catch {
    return false;
  }
};

it("signs once with a secret rotated back to, and retires it at once with grace 0", async () => {
  const app = await h.svix.application.create({ name: "Rotating back" });
  const [a, b] = [generateSecret(), generateSecret()];
  const ep = await h.svix.endpoint.create(app.id, { url: receiver.url("/back"), secret: a });
  await h.svix.endpoint.rotateSecret(app.id, ep.id, { key: b });
  await h.svix.endpoint.rotateSecret(app.id, ep.id, { key: a });

  // A signs as the current secret, B for its grace period: two signatures, not three.
  const during = await delivered(app.id, "/back");
  expect(signatures(during)).toHaveLength(2);
  expect(verifies(a, during) && verifies(b, during)).toBe(true);

  // A leaks: a rotation with grace 0 must stop it signing now.
  await h.svix.endpoint.rotateSecret(app.id, ep.id, { gracePeriodSeconds: 0 });
  const { key: c } = await h.svix.endpoint.getSecret(app.id, ep.id);
  const after = await delivered(app.id, "/back");
  expect(verifies(c, after)).toBe(true);
  expect(verifies(a, after)).toBe(false);
  expect(signatures(after)).toHaveLength(2); // C, and B still in its grace period
});

it("lets two secrets rotate back and forth without filling the places in grace", async () => {
  const app = await h.svix.application.create({ name: "Back and forth" });
  const [a, b] = [generateSecret(), generateSecret()];
  const ep = await h.svix.endpoint.create(app.id, { url: receiver.url("/forth"), secret: a });
  for (let i = 0; i <= MAX_SECRETS_IN_GRACE; i++) {
    await h.svix.endpoint.rotateSecret(app.id, ep.id, { key: i % 2 === 0 ? b : a });
  }
  const stored = await h.hookline.store.getEndpoint(ep.id);
  expect(stored?.secrets.current).toBe(a);
  expect(stored?.secrets.previous.map((p) => p.secret)).toEqual([b]);
  expect(signatures(await delivered(app.id, "/forth"))).toHaveLength(2);
});
