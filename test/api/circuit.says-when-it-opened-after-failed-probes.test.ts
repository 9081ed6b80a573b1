/**
 * A circuit's `since` is its last change, which every failed probe moves on: after two failed
 * probes the API said nothing of when hookline began failing to reach the endpoint, what its
 * owner matches against their own server's logs. The circuit now also gives `openedAt`, when it
 * opened from closed, kept through its reopenings; null while it is closed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/engine/events.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

type Transition = Extract<EngineEvent, { type: "circuit" }>["transition"];

let h: TestHookline;
let rx: Receiver;
beforeAll(async () => {
  // One failure opens the circuit, probed a second later. The request that opens it and the
  // first probe fail; the second probe fails too, and its Retry-After puts the next an hour off.
  h = await startHookline({
    overrides: { breaker: { consecutiveFailures: 1, probeDelayMs: 1_000 } },
  });
  rx = await Receiver.start((_, i) =>
    i < 2 ? { status: 500 } : { status: 503, headers: { "retry-after": "3600" } },
  );
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

describe("the circuit of an endpoint failing its probes", () => {
  it("says when it opened, apart from when it last reopened", async () => {
    const appId = (
      await h.api<{ id: string }>("POST", "/api/v1/app", {
        name: "Acme",
        deliveryPolicy: { retry: { delays: [1, 1, 1, 1, 1], window: 3600 } },
      })
    ).body.id;
    const app = `/api/v1/app/${appId}`;
    const failing = (await h.svix.endpoint.create(appId, { url: rx.url("/down") })).id;
    const circuit = async (epId: string) =>
      (await h.api<Record<string, unknown>>("GET", `${app}/endpoint/${epId}/circuit`)).body;
    expect(await circuit(failing)).toMatchObject({ state: "closed", openedAt: null });

    await h.svix.message.create(appId, { eventType: "order.paid", payload: {} });
    const steps = (): Transition[] =>
      h.events.flatMap((e) =>
        e.type === "circuit" && e.endpointId === failing ? [e.transition] : [],
      );
    await expect.poll(() => steps().length, { timeout: 20_000 }).toBe(3);
    const [opened, , last] = steps() as [Transition, Transition, Transition];
    expect(opened).toMatchObject({ from: "closed", to: "open" });
    expect(last).toMatchObject({ from: "open", to: "open" });
    expect(last.at).toBeGreaterThan(opened.at);

    expect(await circuit(failing)).toMatchObject({
      state: "open",
      since: new Date(last.at).toISOString(),
      openedAt: new Date(opened.at).toISOString(),
      reopenCount: 2,
    });
    // As stored, for the API of a hookline that restarts or another worker's.
    expect(await h.hookline.store.getCircuit(failing)).toMatchObject({
      since: last.at,
      openedAt: opened.at,
    });
  });
});
