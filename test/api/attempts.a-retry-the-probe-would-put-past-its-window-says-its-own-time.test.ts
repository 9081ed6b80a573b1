/**
 * A waiting delivery behind an open circuit says the probe as its next attempt (see
 * attempts.a-delivery-held-by-an-open-circuit-is-next-attempted-at-its-probe), but a retry the
 * probe would put past its retry window is never sent: hookline gives it up, unsent, when its own
 * time comes. Its `nextAttempt` is then that time, when something happens to it, not a probe it
 * will not wait for. On both stores, read through the Svix client.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessageStatus } from "svix";
import { circuitOf, failTogether } from "../support/circuit.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";

const MIN = 60_000;

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline;
  let rx: GatedReceiver;
  let appId: string;
  let epId: string;
  let probeAt: number;
  let waiting: { msgId: string; at: number };

  beforeAll(async () => {
    // Two failures open the circuit; its probe, half an hour off, is past the 10 min window.
    h = await startHooklineOn(
      kind,
      {},
      { breaker: { consecutiveFailures: 2, probeDelayMs: 30 * MIN } },
    );
    rx = await GatedReceiver.start(503);
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    const ep = await h.api<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, {
      url: rx.url(),
      deliveryPolicy: { retry: { delays: [60, 60], window: 600 } },
    });
    epId = ep.body.id;
    // Both fail at once: the first is set to retry a minute on before the second opens the
    // circuit, and the second, judged with the circuit open, is given up at once.
    const msgIds = await failTogether(h, rx, appId, epId, 2);
    for (const id of msgIds) {
      await h.waitFor((e) => e.type === "delivery" && e.messageId === id && e.state !== "inflight");
    }
    const circuit = await circuitOf(h, appId, epId);
    expect(circuit.state).toBe("open");
    probeAt = Date.parse(circuit.nextProbeAt);
    const pending = [];
    for (const id of msgIds) {
      const [d] = await h.hookline.store.listDeliveries(id);
      if (d!.state === "pending") pending.push({ msgId: id, at: d!.nextAttemptAt! });
    }
    expect(pending).toHaveLength(1);
    waiting = pending[0]!;
    expect(waiting.at).toBeLessThan(probeAt);
  });
  afterAll(async () => {
    await h?.stop();
    await rx?.close();
  });

  it("says its own time among the message's destinations", async () => {
    const { data } = await h.svix.messageAttempt.listAttemptedDestinations(appId, waiting.msgId);
    expect(data[0]!.statusText).toBe("pending");
    expect(data[0]!.nextAttempt?.getTime()).toBe(waiting.at);
  });

  it("says its own time among the endpoint's messages", async () => {
    const { data } = await h.svix.messageAttempt.listAttemptedMessages(appId, epId, {
      status: MessageStatus.Pending,
    });
    expect(data.map((m) => [m.id, m.nextAttempt?.getTime()])).toEqual([
      [waiting.msgId, waiting.at],
    ]);
  });
});
