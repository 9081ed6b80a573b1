import { afterEach, describe, expect, it } from "vitest";
import { HttpSender, lost, type Sender } from "../../src/engine/sender.js";
import { ThreadedSender } from "../../src/engine/sender-threads.js";
import { startEngine, type EngineHarness } from "../support/engine.js";
import { GatedReceiver } from "../support/gated-receiver.js";

describe("a sender thread that dies costs the receiver nothing", () => {
  let h: EngineHarness;
  let rx: GatedReceiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("what it held is sent again: no attempt recorded, no failure counted toward the circuit", async () => {
    rx = await GatedReceiver.start();
    const sender = new ThreadedSender({ threads: 1 });
    // One failure would open the circuit.
    h = await startEngine({ sender, breaker: { consecutiveFailures: 1, windowFailures: 1 } });
    await h.addEndpoint(rx.url());
    const msgId = await h.post({ n: 1 });
    await rx.arrived(1);
    // hookline's own thread stops while the receiver still holds the request.
    const pool = sender as unknown as { threads: { worker: { terminate(): Promise<number> } }[] };
    await pool.threads[0]!.worker.terminate();
    rx.release();

    const first = await h.waitFor((e) => e.type === "delivery" && e.messageId === msgId);
    expect(first).toMatchObject({ state: "succeeded", attemptNumber: 1 });
    expect(first.type === "delivery" && first.attempt?.trigger).toBe("first");
    expect(rx.ids).toEqual([msgId, msgId]);
    const page = await h.store.listAttempts({ appId: h.app.id, messageId: msgId, limit: 10 });
    expect(page.data.map((a) => a.status)).toEqual([200]);
    expect(h.events.filter((e) => e.type === "circuit")).toEqual([]);
  });

  it("a store that refuses the put-back keeps the delivery in hand, sent once it recovers", async () => {
    rx = await GatedReceiver.start();
    rx.release();
    const http = new HttpSender();
    let sends = 0;
    const sender: Sender = {
      send: (req) => (sends++ === 0 ? Promise.resolve(lost("thread gone")) : http.send(req)),
      close: () => http.close(),
    };
    h = await startEngine({ sender, breaker: { consecutiveFailures: 1, windowFailures: 1 } });
    const release = h.store.releaseDeliveries.bind(h.store);
    let refused = 0;
    h.store.releaseDeliveries = (releases) => {
      if (refused++ === 0) return Promise.reject(new Error("disk full"));
      return release(releases);
    };
    await h.addEndpoint(rx.url());
    const msgId = await h.post({ n: 2 });

    const first = await h.waitFor((e) => e.type === "delivery" && e.messageId === msgId);
    expect(first).toMatchObject({ state: "succeeded", attemptNumber: 1 });
    expect(refused).toBe(1);
    expect(rx.ids).toEqual([msgId]);
    expect(h.events.filter((e) => e.type === "circuit")).toEqual([]);
  });
});
