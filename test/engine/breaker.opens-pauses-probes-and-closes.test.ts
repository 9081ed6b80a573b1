import { afterEach, describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/engine/events.js";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

const MIN = 60_000;
const isCircuit = (to: string) => (e: EngineEvent) =>
  e.type === "circuit" && e.transition.to === to;
/**
 * The n-th attempt recorded: its retry is then due a second after its answer on the fake clock.
 * Waited for before the clock moves on, rather than a few real milliseconds: on a busy machine the
 * answer can be read after the clock has moved, and its retry is then a second past that.
 */
const attempted = (n: number) => (e: EngineEvent) => e.type === "delivery" && e.attemptNumber === n;

describe("the circuit breaker of an endpoint", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("opens after 5 consecutive failures, pauses retries without spending attempts, probes after 5 minutes, and closes after the trickle succeeds", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    let healthy = false;
    rx = await Receiver.start(() => ({ status: healthy ? 200 : 503 }));
    const ep = await h.addEndpoint(rx.url("/flaky"), {
      retry: { delays: [1, 1, 1, 1, 1, 1, 1, 1, 1], window: 86_400 },
    });
    const msgId = await h.post({ n: 1 });
    for (let i = 1; i < 5; i++) {
      await h.waitFor(attempted(i));
      clock.advance(1000);
    }
    const opened = await h.waitFor(isCircuit("open"));
    const openedAt = clock.now();
    expect(rx.requests).toHaveLength(5);
    const circuit = await h.store.getCircuit(ep.id);
    expect(circuit).toMatchObject({ state: "open", nextProbeAt: openedAt + 5 * MIN });
    expect(circuit!.reason).toMatch(/5 consecutive failures/);
    expect(opened.type === "circuit" && opened.transition.from).toBe("closed");

    // New messages and the paused retry wait; nothing is sent and no attempt is spent.
    const second = await h.post({ n: 2 });
    for (let i = 0; i < 5; i++) {
      clock.advance(MIN - 1);
      await settle();
    }
    expect(rx.requests).toHaveLength(5);
    expect((await h.store.listDeliveries(msgId))[0]!.attemptCount).toBe(5);

    healthy = true;
    clock.advance(5);
    await h.waitFor(isCircuit("half-open"));
    const probe =
      h.events.find((e) => e.type === "delivery" && e.attempt?.trigger === "probe") ??
      (await h.waitFor((e) => e.type === "delivery" && e.attempt?.trigger === "probe"));
    expect(probe.type === "delivery" && probe.attempt?.status).toBe(200);

    // Half-open lets a trickle through; five successes close the circuit.
    const more = [second];
    for (let i = 0; i < 5; i++) more.push(await h.post({ n: 3 + i }));
    await h.waitFor(isCircuit("closed"));
    for (const id of more) await h.waitFor(reached(id, "succeeded"));
    expect(rx.maxConcurrentOn("/flaky")).toBeLessThanOrEqual(2);
    const transitions = await h.store.listCircuitTransitions(ep.id, 10);
    expect(transitions.map((t) => t.to).reverse()).toEqual(["open", "half-open", "closed"]);
  });

  it("a failed probe re-opens the circuit with a longer wait, and the state survives a restart", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start(() => ({ status: 500 }));
    const ep = await h.addEndpoint(rx.url("/down"), {
      retry: { delays: Array(20).fill(1), window: 86_400 },
    });
    await h.post({});
    for (let i = 1; i < 5; i++) {
      await h.waitFor(attempted(i));
      clock.advance(1000);
    }
    await h.waitFor(isCircuit("open"));
    clock.advance(5 * MIN);
    await rx.waitFor(6);
    await h.waitFor(
      (e) => e.type === "circuit" && e.transition.from === "open" && e.transition.to === "open",
    );
    const reopened = await h.store.getCircuit(ep.id);
    expect(reopened!.nextProbeAt! - clock.now()).toBe(10 * MIN);

    await h.restart();
    expect(h.engine.endpointStatus(ep.id)).toBeNull();
    clock.advance(5 * MIN);
    await settle();
    expect(rx.requests).toHaveLength(6);
    clock.advance(5 * MIN);
    await rx.waitFor(7);
  });
});
