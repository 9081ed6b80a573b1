/**
 * An open circuit sends nothing before its probe, so a waiting delivery's `nextAttempt` is the
 * probe's time when its own is sooner. Deliveries whose failures came in together with the one
 * that opened the circuit keep the retry time set just before (30 s on) until it comes and they
 * are put off to the probe: the outcomes are committed a few milliseconds after the circuit's
 * pause of the endpoint's waiting deliveries. The API said their next attempt was in 25 s while
 * the circuit held them for half an hour. Both lists that carry `nextAttempt` (a message's
 * destinations, an endpoint's messages) now say the probe, read through the Svix client, on both
 * stores; a disabled endpoint's delivery keeps its own time, when hookline gives it up.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  let msgIds: string[];

  beforeAll(async () => {
    // Two failures open the circuit, and its probe is half an hour off.
    h = await startHooklineOn(
      kind,
      {},
      { breaker: { consecutiveFailures: 2, probeDelayMs: 30 * MIN } },
    );
    rx = await GatedReceiver.start(503);
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url() })).id;
    msgIds = await failTogether(h, rx, appId, epId, 3);
    for (const id of msgIds) {
      await h.waitFor((e) => e.type === "delivery" && e.messageId === id && e.state === "pending");
    }
    const circuit = await circuitOf(h, appId, epId);
    expect(circuit.state).toBe("open");
    probeAt = Date.parse(circuit.nextProbeAt);
    expect(probeAt - Date.now()).toBeGreaterThan(29 * MIN);
  });
  afterAll(async () => {
    await h?.stop();
    await rx?.close();
  });

  it("says each destination's next attempt is at the probe", async () => {
    for (const id of msgIds) {
      const { data } = await h.svix.messageAttempt.listAttemptedDestinations(appId, id);
      expect(data).toHaveLength(1);
      expect(data[0]!.statusText).toBe("pending");
      expect(data[0]!.nextAttempt?.getTime()).toBe(probeAt);
    }
  });

  it("says each of the endpoint's messages is next attempted at the probe", async () => {
    const { data } = await h.svix.messageAttempt.listAttemptedMessages(appId, epId);
    expect(data.map((m) => m.id).sort()).toEqual([...msgIds].sort());
    for (const m of data) {
      expect(m.statusText).toBe("pending");
      expect(m.nextAttempt?.getTime()).toBe(probeAt);
    }
  });

  it("says a disabled endpoint's deliveries' own times, when they are given up", async () => {
    await h.svix.endpoint.patch(appId, epId, { disabled: true });
    const own = new Map<string, number>();
    for (const id of msgIds) {
      const [d] = await h.hookline.store.listDeliveries(id);
      own.set(id, d!.nextAttemptAt!);
    }
    for (const id of msgIds) {
      const { data } = await h.svix.messageAttempt.listAttemptedDestinations(appId, id);
      expect(data[0]!.nextAttempt?.getTime()).toBe(own.get(id));
    }
    const { data } = await h.svix.messageAttempt.listAttemptedMessages(appId, epId);
    for (const m of data) expect(m.nextAttempt?.getTime()).toBe(own.get(m.id));
  });
});
