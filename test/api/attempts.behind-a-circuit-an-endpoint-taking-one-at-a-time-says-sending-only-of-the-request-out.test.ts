/**
 * An endpoint that takes one request at a time (a concurrency limit of 1, as for receivers that
 * need their events in order) whose circuit opened: at the probe's time every delivery held for
 * it is due, and a claim takes them. The probe took the endpoint's only slot, and the rest stayed
 * in the engine's hands, claimed, while it was out (up to the request's timeout, at every probe
 * of an endpoint that keeps failing): the API said each of them was being sent. With a larger
 * limit they went back to the store at once, to wait for the probe's result as pending. Now they
 * do whatever the limit. Once the probe gets through, the half-open circuit's trickle is one at a
 * time too, and the engine held one delivery more than that, read as being sent: it holds what
 * can go out, the trickle within the endpoint's limit. Read through the Svix client on both
 * stores.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPENS_AT_ONE_FAILURE, postOrder } from "../support/circuit.js";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline;
  let rx: Receiver;
  let answerProbe: () => void = () => {};
  const probeHeld = new Promise<void>((r) => (answerProbe = r));
  let answerTrickle: () => void = () => {};
  const trickleHeld = new Promise<void>((r) => (answerTrickle = r));
  let appId: string;
  let epId: string;
  const msgIds: string[] = [];
  const post = async (n: number) => msgIds.push(await postOrder(h, appId, n));
  /** Each message's status at the endpoint, and the endpoint's counts. */
  const standing = async () => {
    const statuses: Record<string, string> = {};
    for (const id of msgIds) {
      const { data } = await h.svix.messageAttempt.listAttemptedDestinations(appId, id);
      statuses[id] = data[0]!.statusText;
    }
    const { body: stats } = await h.api<{ sending: number; pending: number; success: number }>(
      "GET",
      `/api/v1/app/${appId}/endpoint/${epId}/stats`,
    );
    return { statuses, sending: stats.sending, pending: stats.pending, success: stats.success };
  };

  beforeAll(async () => {
    h = await startHooklineOn(kind, {}, { breaker: OPENS_AT_ONE_FAILURE });
    // The first request fails; the probe, then the trickle after it, are held until the test
    // answers them.
    rx = await Receiver.start((_, i) =>
      i === 0 ? { status: 500 } : { status: 200, until: i === 1 ? probeHeld : trickleHeld },
    );
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", {
      name: "Acme",
      // One request at a time; the longest request timeout, so the held probe does not time out.
      deliveryPolicy: {
        retry: { delays: [1], window: 3600 },
        timeoutMs: 30_000,
        concurrencyLimit: 1,
      },
    });
    appId = app.body.id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
    await post(0);
    await h.waitFor((e) => e.type === "circuit" && e.endpointId === epId);
    // Held for the probe, these all come due with it.
    for (let n = 1; n <= 8; n++) await post(n);
    await rx.waitFor(2);
  });
  afterAll(async () => {
    answerProbe();
    answerTrickle();
    await h?.stop();
    await rx?.close();
  });

  it("says sending only of the probe while it is out, and pending of the rest", async () => {
    const probed = rx.requests[1]!.headers["webhook-id"]!;
    const expected = Object.fromEntries(
      msgIds.map((id) => [id, id === probed ? "sending" : "pending"]),
    );
    // The probe goes out as the others go back to the store: on PostgreSQL their write may still
    // be on its way as the probe arrives.
    await expect
      .poll(standing, { timeout: 10_000 })
      .toEqual({ statuses: expected, sending: 1, pending: 8, success: 0 });
  });

  it("once the probe got through, says sending only of the trickle's one request out", async () => {
    const probed = rx.requests[1]!.headers["webhook-id"]!;
    answerProbe();
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "half-open");
    await rx.waitFor(3);
    const out = rx.requests[2]!.headers["webhook-id"]!;
    const expected = Object.fromEntries(
      msgIds.map((id) => [id, id === probed ? "success" : id === out ? "sending" : "pending"]),
    );
    await expect
      .poll(standing, { timeout: 10_000 })
      .toEqual({ statuses: expected, sending: 1, pending: 7, success: 1 });
  });

  it("sends them all once the trickle is answered, and closes", async () => {
    answerTrickle();
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "closed");
    for (const id of msgIds) {
      await h.waitFor(
        (e) => e.type === "delivery" && e.messageId === id && e.state === "succeeded",
      );
    }
  });
});
