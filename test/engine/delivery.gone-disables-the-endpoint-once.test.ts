/**
 * A receiver that starts answering 410 Gone while many requests are in flight answers each of
 * them 410. The endpoint is disabled once: one `endpoint.disabled` event (one operational webhook,
 * one log line), not one per request.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GatedReceiver } from "../support/gated-receiver.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";

describe("410 Gone on five requests in flight", () => {
  let h: EngineHarness;
  let rx: GatedReceiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("disables the endpoint with one event", async () => {
    h = await startEngine();
    rx = await GatedReceiver.start(410);
    const ep = await h.addEndpoint(rx.url(), { concurrencyLimit: 5 });
    const ids = [];
    for (let n = 0; n < 5; n++) ids.push(await h.post({ n }));
    await rx.arrived(5);
    rx.release();
    for (const id of ids) await h.waitFor(reached(id, "dead"));
    await settle();
    const disabled = h.events.filter(
      (e) => e.type === "endpoint.disabled" && e.endpointId === ep.id,
    );
    expect(disabled).toHaveLength(1);
  });
});
