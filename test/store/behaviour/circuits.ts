/** Circuit-breaker state kept across restarts, and its history of transitions. */
import { describe, expect, it } from "vitest";
import type { CircuitRecord, Endpoint } from "../../../src/domain/types.js";
import type { CircuitTransition } from "../../../src/engine/breaker.js";
import { HOUR, MINUTE, seedApp, T0, type StoreUnderTest } from "./fixtures.js";

const OPEN: CircuitRecord = {
  state: "open",
  since: T0,
  reason: "5 consecutive failures",
  nextProbeAt: T0 + 5 * MINUTE,
  reopenCount: 1,
  openedAt: T0 - 5 * MINUTE,
};

const HALF_OPEN: CircuitRecord = {
  state: "half-open",
  since: T0 + 5 * MINUTE,
  reason: null,
  nextProbeAt: null,
  reopenCount: 1,
  openedAt: T0 - 5 * MINUTE,
};

function transition(from: CircuitTransition["from"], to: CircuitTransition["to"], at: number) {
  return { from, to, at, reason: `${from} to ${to}` };
}

export function circuitBehaviour(t: StoreUnderTest): void {
  describe("circuits", () => {
    it("saves a circuit and reads it back, one per endpoint", async () => {
      const { endpoints } = await seedApp(t.store, [{}, {}, {}]);
      const [a, b, c] = endpoints.map((e) => e.id) as [string, string, string];
      expect(await t.store.getCircuit(a)).toBeNull();

      await t.store.saveCircuit(a, OPEN, transition("closed", "open", T0));
      await t.store.saveCircuit(b, HALF_OPEN, null);
      expect(await t.store.getCircuit(a)).toEqual(OPEN);
      expect(await t.store.getCircuit(b)).toEqual(HALF_OPEN);
      expect(await t.store.getCircuit(c)).toBeNull();

      // Saving again replaces the snapshot.
      await t.store.saveCircuit(a, HALF_OPEN, transition("open", "half-open", T0 + 5 * MINUTE));
      expect(await t.store.getCircuit(a)).toEqual(HALF_OPEN);
      expect(await t.store.getCircuit(b)).toEqual(HALF_OPEN);
    });

    it("keeps when the circuit opened apart from its last change, and none once it closed", async () => {
      const { endpoints } = await seedApp(t.store, [{}, {}]);
      const [a, b] = endpoints.map((e) => e.id) as [string, string];
      // Reopened twice since it opened: `since` is the last reopening.
      const reopened = { ...OPEN, since: T0 + HOUR, reopenCount: 2, openedAt: T0 };
      await t.store.saveCircuit(a, reopened, transition("open", "open", T0 + HOUR));
      const closed = { ...reopened, state: "closed" as const, since: T0 + 2 * HOUR };
      await t.store.saveCircuit(b, reopened, null);
      await t.store.saveCircuit(b, { ...closed, reopenCount: 0, openedAt: null }, null);

      expect(await t.store.getCircuit(a)).toEqual(reopened);
      expect((await t.store.getCircuits([a])).get(a)).toEqual(reopened);
      expect((await t.store.getEndpointsHealth([a])).get(a)!.circuit).toEqual(reopened);
      const unclosed = await t.store.listUnclosedCircuits(100);
      expect(unclosed.find((r) => r.endpointId === a)!.circuit).toEqual(reopened);
      expect((await t.store.getCircuit(b))!.openedAt).toBeNull();
    });

    it("reads several endpoints' circuits and stats at once, as one by one", async () => {
      const { endpoints } = await seedApp(t.store, [{}, {}, {}]);
      const [a, b, c] = endpoints.map((e) => e.id) as [string, string, string];
      await t.store.saveCircuit(a, OPEN, transition("closed", "open", T0));
      await t.store.saveCircuit(b, HALF_OPEN, null);
      const read = await t.store.getEndpointsHealth([a, b, c, "ep_none"]);
      expect([...read.keys()]).toEqual([a, b, c, "ep_none"]);
      for (const id of [a, b, c]) {
        expect(read.get(id)).toEqual({
          circuit: await t.store.getCircuit(id),
          stats: await t.store.getEndpointStats(id),
        });
      }
      expect(read.get(a)!.circuit).toEqual(OPEN);
      expect(read.get(c)!.circuit).toBeNull();
      expect((await t.store.getEndpointsHealth([])).size).toBe(0);
    });

    it("reads several endpoints' stored circuits at once, leaving out those never written", async () => {
      const { endpoints } = await seedApp(t.store, [{}, {}, {}]);
      const [a, b, c] = endpoints.map((e) => e.id) as [string, string, string];
      await t.store.saveCircuit(a, OPEN, transition("closed", "open", T0));
      await t.store.saveCircuit(b, HALF_OPEN, null);
      const read = await t.store.getCircuits([a, b, c, "ep_none"]);
      // A map compares by its entries, whatever their order.
      expect(read).toEqual(
        new Map<string, CircuitRecord>([
          [a, OPEN],
          [b, HALF_OPEN],
        ]),
      );
      expect((await t.store.getCircuits([])).size).toBe(0);
    });

    it("lists an endpoint's transitions newest first, at most `limit`", async () => {
      const { endpoints } = await seedApp(t.store, [{}, {}]);
      const [a, b] = endpoints.map((e) => e.id) as [string, string];
      const steps = [
        transition("closed", "open", T0),
        transition("open", "half-open", T0 + 5 * MINUTE),
        transition("half-open", "open", T0 + 6 * MINUTE),
        transition("open", "half-open", T0 + HOUR),
      ];
      for (const step of steps) {
        await t.store.saveCircuit(a, { ...OPEN, state: step.to, since: step.at }, step);
      }
      // A save without a transition adds none.
      await t.store.saveCircuit(a, { ...OPEN, state: "half-open", since: T0 + HOUR }, null);
      await t.store.saveCircuit(b, OPEN, transition("closed", "open", T0 + 2 * HOUR));

      const latest = await t.store.listCircuitTransitions(a, 2);
      expect(latest).toEqual([
        { endpointId: a, ...steps[3] },
        { endpointId: a, ...steps[2] },
      ]);
      const all = await t.store.listCircuitTransitions(a, 10);
      expect(all).toEqual([...steps].reverse().map((s) => ({ endpointId: a, ...s })));
      expect(await t.store.listCircuitTransitions(b, 10)).toHaveLength(1);
    });

    it("lists the circuits not closed, most recently changed first, at most `limit`", async () => {
      const { endpoints } = await seedApp(t.store, [{}, {}, {}, {}]);
      const [a, b, c, d] = endpoints.map((e) => e.id) as [string, string, string, string];
      await t.store.saveCircuit(a, OPEN, null);
      await t.store.saveCircuit(b, HALF_OPEN, null);
      await t.store.saveCircuit(c, { ...HALF_OPEN, state: "closed", since: T0 + HOUR }, null);
      await t.store.saveCircuit(d, { ...OPEN, since: T0 + 2 * MINUTE }, null);

      const mine = (rows: { endpointId: string }[]) =>
        rows.filter((r) => endpoints.some((e) => e.id === r.endpointId));
      expect(mine(await t.store.listUnclosedCircuits(100))).toEqual([
        { endpointId: b, circuit: HALF_OPEN },
        { endpointId: d, circuit: { ...OPEN, since: T0 + 2 * MINUTE } },
        { endpointId: a, circuit: OPEN },
      ]);
      expect(await t.store.listUnclosedCircuits(1)).toHaveLength(1);
    });

    it("leaves out the circuits of endpoints disabled or deleted, until one is enabled again", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}, {}]);
      const [kept, stopped, gone] = endpoints as [Endpoint, Endpoint, Endpoint];
      for (const e of endpoints) await t.store.saveCircuit(e.id, OPEN, null);
      await t.store.updateEndpoint({ ...stopped, disabled: true, disabledReason: "manual" });
      await t.store.deleteEndpoint(app.id, gone.id);
      // A request in flight as the endpoint went may still save its circuit.
      await t.store.saveCircuit(gone.id, { ...OPEN, since: T0 + MINUTE }, null);

      const listed = async () =>
        (await t.store.listUnclosedCircuits(100))
          .map((r) => r.endpointId)
          .filter((id) => endpoints.some((e) => e.id === id));
      expect(await listed()).toEqual([kept.id]);

      const again = (await t.store.getEndpoint(stopped.id))!;
      await t.store.updateEndpoint({ ...again, disabled: false, disabledReason: null });
      expect((await listed()).sort()).toEqual([kept.id, stopped.id].sort());
    });
  });
}
