/**
 * Once a probe gets through, a half-open circuit lets a trickle of requests out (two at a time)
 * until enough succeed. The engine used to claim every delivery the probe had held back, all due
 * at once, and keep them in hand while the trickle went on: the API said each of them was being
 * sent (`sending`), a customer saw many deliveries "sending" with two requests out. Now it holds
 * the trickle's worth and leaves the rest pending in the store, claimed as the trickle goes on;
 * read through the Svix client on both stores, with everything delivered once the trickle is
 * answered.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deliveriesBehindAHalfOpenCircuit,
  OPENS_AT_ONE_FAILURE,
  probedThenHeld,
} from "../support/circuit.js";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline;
  let rx: Receiver;
  let answerTrickle: () => void = () => {};
  const trickleHeld = new Promise<void>((r) => (answerTrickle = r));
  let appId: string;
  let epId: string;
  let msgIds: string[];

  beforeAll(async () => {
    h = await startHooklineOn(kind, {}, { breaker: OPENS_AT_ONE_FAILURE });
    rx = await Receiver.start(probedThenHeld(trickleHeld));
    ({ appId, epId, msgIds } = await deliveriesBehindAHalfOpenCircuit(h, rx));
  });
  afterAll(async () => {
    answerTrickle();
    await h?.stop();
    await rx?.close();
  });

  it("says sending only of the deliveries whose requests are out, and pending of the rest", async () => {
    const out = new Set(rx.requests.slice(2).map((r) => r.headers["webhook-id"]));
    expect(out.size).toBe(2);
    const probed = rx.requests[1]!.headers["webhook-id"];
    for (const id of msgIds) {
      const { data } = await h.svix.messageAttempt.listAttemptedDestinations(appId, id);
      const expected = out.has(id) ? "sending" : id === probed ? "success" : "pending";
      expect({ id, status: data[0]!.statusText }).toEqual({ id, status: expected });
    }
    const { data: listed } = await h.svix.messageAttempt.listAttemptedMessages(appId, epId);
    expect(
      listed
        .filter((m) => m.statusText === "sending")
        .map((m) => m.id)
        .sort(),
    ).toEqual([...out].sort());
    const { body: stats } = await h.api<{ sending: number; pending: number }>(
      "GET",
      `/api/v1/app/${appId}/endpoint/${epId}/stats`,
    );
    expect(stats).toMatchObject({ sending: 2, pending: 6 });
  });

  it("sends the ones left in the store as the trickle is answered, and closes", async () => {
    answerTrickle();
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "closed");
    for (const id of msgIds) {
      await h.waitFor(
        (e) => e.type === "delivery" && e.messageId === id && e.state === "succeeded",
      );
    }
  });
});
