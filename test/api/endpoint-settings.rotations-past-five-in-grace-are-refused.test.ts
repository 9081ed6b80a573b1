/**
 * Every secret still in its grace period signs every request, so rotating in a loop would grow the
 * signature header until receivers refuse it. Past five replaced secrets a rotation is refused
 * (409, saying when the first of them stops signing) and nothing changes; a grace period of 0 is
 * still taken, and once the first one lapses rotations are taken again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiException } from "svix";
import { MAX_SECRETS_IN_GRACE } from "../../src/api/secret-rotation.js";
import { generateSecret } from "../../src/signing/secret.js";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

const HOUR = 3_600_000;
const clock = new FakeClock();
let h: TestHookline;
let appId: string;
beforeAll(async () => {
  h = await startHookline({
    env: { HOOKLINE_SECRET_GRACE_SECONDS: "86400" },
    overrides: { clock },
  });
  appId = (await h.svix.application.create({ name: "Rotations" })).id;
});
afterAll(async () => h.stop());
const stored = (id: string) => h.hookline.store.getEndpoint(id);

const refusal = async (attempt: Promise<unknown>) => {
  const err = await attempt.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiException);
  const { code, body } = err as ApiException<{ code: string; detail: string }>;
  expect(code).toBe(409);
  expect(body.code).toBe("conflict");
  return body.detail;
};

describe("rotating an endpoint's secret", () => {
  it("refuses a sixth secret in grace, naming when the first stops signing, and keeps all five", async () => {
    const ep = await h.svix.endpoint.create(appId, { url: "https://example.com/loop" });
    clock.advance(60_000);
    const firstExpiry = clock.now() + 24 * HOUR;
    for (let i = 0; i < MAX_SECRETS_IN_GRACE; i++) {
      await h.svix.endpoint.rotateSecret(appId, ep.id, {});
      clock.advance(60_000);
    }
    const before = await stored(ep.id);
    expect(before?.secrets.previous).toHaveLength(MAX_SECRETS_IN_GRACE);

    const detail = await refusal(h.svix.endpoint.rotateSecret(appId, ep.id, {}));
    expect(detail).toContain(new Date(firstExpiry).toISOString());
    expect(detail).toContain("gracePeriodSeconds 0");
    // A new secret through PATCH is a rotation too.
    await refusal(h.svix.endpoint.patch(appId, ep.id, { secret: generateSecret() }));
    expect((await stored(ep.id))?.secrets).toEqual(before?.secrets);

    // Retiring the current secret at once adds none, so it is taken.
    const chosen = generateSecret();
    await h.svix.endpoint.rotateSecret(appId, ep.id, { key: chosen, gracePeriodSeconds: 0 });
    const retired = await stored(ep.id);
    expect(retired?.secrets.current).toBe(chosen);
    expect(retired?.secrets.previous).toEqual(before?.secrets.previous);

    // Once the first one has lapsed there is room again, and the lapsed one is gone.
    clock.advance(firstExpiry - clock.now());
    await h.svix.endpoint.rotateSecret(appId, ep.id, {});
    const after = await stored(ep.id);
    expect(after?.secrets.previous).toHaveLength(MAX_SECRETS_IN_GRACE);
    expect(after?.secrets.previous[0]?.secret).toBe(chosen);
    expect(after?.secrets.previous.map((p) => p.secret)).not.toContain(
      before?.secrets.previous.at(-1)?.secret,
    );
  });

  it("holds operational webhook endpoints to the same limit", async () => {
    const ep = await h.svix.operationalWebhookEndpoint.create({ url: "https://example.com/ops" });
    for (let i = 0; i < MAX_SECRETS_IN_GRACE; i++) {
      await h.svix.operationalWebhookEndpoint.rotateSecret(ep.id, {});
    }
    const before = await stored(ep.id);
    await refusal(h.svix.operationalWebhookEndpoint.rotateSecret(ep.id, {}));
    expect((await stored(ep.id))?.secrets).toEqual(before?.secrets);
  });
});
