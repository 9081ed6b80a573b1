import { afterEach, describe, expect, it } from "vitest";
import { reached, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

describe("the set of permanent statuses is configurable per endpoint", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("a custom set makes 409 permanent and 404 retryable for that endpoint only", async () => {
    h = await startEngine();
    rx = await Receiver.start((r) => ({ status: r.path.startsWith("/conflict") ? 409 : 404 }));
    const policy = { permanentStatuses: [409], retry: { delays: [3600] } };
    await h.addEndpoint(rx.url("/conflict"), policy, { filterTypes: ["a"] });
    await h.addEndpoint(rx.url("/missing"), policy, { filterTypes: ["b"] });
    await h.addEndpoint(rx.url("/missing-default"), undefined, { filterTypes: ["b"] });

    const a = await h.post({}, { eventType: "a" });
    await h.waitFor(reached(a, "dead"));
    const b = await h.post({}, { eventType: "b" });
    // Custom set: 404 is retried. Default set: 404 is permanent.
    await h.waitFor(reached(b, "pending"));
    await h.waitFor(reached(b, "dead"));
    const deliveries = await h.store.listDeliveries(b);
    expect(deliveries.map((d) => d.state).sort()).toEqual(["dead", "pending"]);
  });

  it("an application's policy applies to its endpoints unless an endpoint sets its own", async () => {
    h = await startEngine();
    rx = await Receiver.start(() => ({ status: 409 }));
    await h.store.updateApplication({ ...h.app, deliveryPolicy: { permanentStatuses: [409] } });
    h.engine.invalidateApplication(h.app.id);
    await h.addEndpoint(rx.url("/inherits"), undefined, { filterTypes: ["a"] });
    await h.addEndpoint(
      rx.url("/own"),
      { permanentStatuses: [400], retry: { delays: [3600] } },
      {
        filterTypes: ["b"],
      },
    );
    const a = await h.post({}, { eventType: "a" });
    await h.waitFor(reached(a, "dead"));
    const b = await h.post({}, { eventType: "b" });
    await h.waitFor(reached(b, "pending"));
  });
});
