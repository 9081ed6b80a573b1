/**
 * A resend to a disabled endpoint is refused (409) with nothing written, as a dead-letter replay to
 * one is: hookline sends a disabled endpoint nothing, so the resend could only end as a new dead
 * letter ("endpoint disabled") behind a 202 that said it was queued.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "A" })).id;
});
afterAll(async () => api.close());

const resend = (msgId: string, endpointId: string) =>
  api.call("POST", `/api/v1/app/${appId}/msg/${msgId}/endpoint/${endpointId}/resend`);

describe("resending to a disabled endpoint", () => {
  it("answers 409 saying the endpoint is disabled, and writes no delivery", async () => {
    const ep = await api.svix.endpoint.create(appId, { url: "https://example.com/off" });
    const msg = await api.svix.message.create(appId, { eventType: "a.b", payload: {} });
    await api.svix.endpoint.patch(appId, ep.id, { disabled: true });
    const before = await api.store.listDeliveries(msg.id);
    const wakes = api.engine.wakes;

    const res = await resend(msg.id, ep.id);
    expect(res.status).toBe(409);
    const body = (await res.json()) as { code: string; detail: string };
    expect(body.code).toBe("conflict");
    expect(body.detail).toMatch(new RegExp(`endpoint ${ep.id} is disabled`));
    expect(await api.store.listDeliveries(msg.id)).toEqual(before);
    expect(api.engine.wakes).toBe(wakes);
  });

  it("resends once the endpoint is enabled again (202)", async () => {
    const ep = await api.svix.endpoint.create(appId, { url: "https://example.com/back" });
    const msg = await api.svix.message.create(appId, { eventType: "a.b", payload: {} });
    await api.svix.endpoint.patch(appId, ep.id, { disabled: true });
    expect((await resend(msg.id, ep.id)).status).toBe(409);
    await api.svix.endpoint.patch(appId, ep.id, { disabled: false });

    const [waiting] = await api.store.listDeliveries(msg.id);
    const at = Date.now();
    expect((await resend(msg.id, ep.id)).status).toBe(202);
    // Nothing sends here, so the message's own delivery still waits: the resend sends that one
    // now rather than adding another (store behaviour: enqueueResend).
    const after = await api.store.listDeliveries(msg.id);
    expect(after.map((d) => [d.id, d.origin])).toEqual([[waiting!.id, "message"]]);
    expect(after[0]!.nextAttemptAt).toBeLessThanOrEqual(Math.max(at, waiting!.nextAttemptAt!));
  });
});
