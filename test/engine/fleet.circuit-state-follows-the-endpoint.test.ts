/**
 * Two workers sharing PostgreSQL: the circuit one worker opened holds for the next owner of the
 * endpoint. Worker A's failures open the circuit; A stops and hands the endpoint back; worker B
 * takes a delivery of that endpoint that is due now and, seeing the open circuit, sends nothing
 * and parks it at the probe time.
 */
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { DeliveryEngine } from "../../src/engine/engine.js";
import { HttpSender } from "../../src/engine/sender.js";
import { newId } from "../../src/ids.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { fleetWorkerSettings } from "../support/fleet-worker.js";
import { Receiver } from "../support/receiver.js";

describe("a circuit opened by one worker", () => {
  const schema = freshSchemaName();
  let store: PostgresStore;
  let rx: Receiver;
  const engines: DeliveryEngine[] = [];
  const sender = new HttpSender({ refusePrivateTargets: false });

  afterEach(async () => {
    for (const e of engines) await e.stop();
    await sender.close();
    await store.close();
    await rx.close();
    await dropSchema(schema);
  });

  const worker = () => {
    const engine = new DeliveryEngine({
      store,
      sender,
      clock: systemClock,
      random: () => 0.5,
      settings: fleetWorkerSettings({
        concurrencyLimit: 10,
        heartbeatMs: 100,
        deadAfterMs: 1_000,
        breaker: { consecutiveFailures: 3 },
      }),
    });
    engines.push(engine);
    return engine;
  };

  it("holds for the worker that owns the endpoint next", async () => {
    store = await PostgresStore.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 });
    rx = await Receiver.start(() => ({ status: 500 }));
    const app = await store.createApplication(anApplication());
    const ep = await store.createEndpoint(anEndpoint(app.id, { url: rx.url("/hook") }));
    const a = worker();
    await a.start();
    const opened = a.events.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
    const now = Date.now();
    let messageId = "";
    for (let i = 0; i < 3; i++) {
      const accepted = await accept(store, app.id, { now, payload: Buffer.from(`{"i":${i}}`) });
      messageId = accepted.message.id;
    }
    a.wake(now);
    await opened;
    await a.stop();
    const sent = rx.requests.length;
    expect(sent).toBe(3);

    // A person resends a message: due now, whatever the circuit says.
    const b = worker();
    await b.start();
    const resend = (await store.enqueueResend({
      id: newId("dlv"),
      appId: app.id,
      messageId,
      endpointId: ep.id,
      now: Date.now(),
    }))!;
    b.wake(resend.nextAttemptAt ?? undefined);
    await expect
      .poll(async () => (await store.getDelivery(resend.id))?.nextAttemptAt ?? 0, {
        timeout: 20_000,
      })
      .toBeGreaterThan(Date.now() + 60_000);
    expect(b.endpointStatus(ep.id)?.circuit.state).toBe("open");
    expect(rx.requests.length).toBe(sent);
  });
});
