/**
 * hookline used to write a circuit's reason with the wait it had just set ("probe failed: HTTP
 * 500; next probe in 1 h"), a countdown frozen when it was written. It writes no wait any more,
 * but a circuit stored by an older hookline keeps its reason until it next changes, and the API
 * went on giving it as it was. The circuit's reason is now given without those words, and where
 * they said the receiver's Retry-After set the wait it says so as a new reason does; the
 * circuit's log of transitions keeps what was written at each.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CircuitState } from "../../src/engine/breaker.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Acme" })).id;
});
afterAll(async () => api.close());

/** A new endpoint whose stored circuit an older hookline left `state`, with `reason`. */
async function storedBefore(state: CircuitState, reason: string): Promise<string> {
  const id = (await api.svix.endpoint.create(appId, { url: "https://example.com/hook" })).id;
  const at = Date.now() - 20 * 60_000;
  const next = state === "open" ? at + 3_600_000 : null;
  await api.store.saveCircuit(
    id,
    { state, since: at, reason, nextProbeAt: next, reopenCount: 1 },
    { from: "half-open", to: state, at, reason },
  );
  return id;
}

async function shown(epId: string): Promise<{ reason: string; transition: string }> {
  const circuit = (await (
    await api.call("GET", `/api/v1/app/${appId}/endpoint/${epId}/circuit`)
  ).json()) as { reason: string; transitions: { reason: string }[] };
  const ep = (await (await api.call("GET", `/api/v1/app/${appId}/endpoint/${epId}`)).json()) as {
    circuit: { reason: string };
  };
  expect(ep.circuit.reason).toBe(circuit.reason);
  return { reason: circuit.reason, transition: circuit.transitions[0]!.reason };
}

describe("a circuit's reason written by an older hookline", () => {
  it("is given without the wait it was written with", async () => {
    const written = "failure while half-open: HTTP 500; next probe in 1 h";
    const epId = await storedBefore("open", written);
    expect(await shown(epId)).toEqual({
      reason: "failure while half-open: HTTP 500",
      transition: written,
    });
  });

  it("says the receiver's Retry-After put the probe off where it said it set the wait", async () => {
    const epId = await storedBefore(
      "open",
      "probe failed: HTTP 503; next probe in 1 h 30 min, as its Retry-After asked",
    );
    expect((await shown(epId)).reason).toBe(
      "probe failed: HTTP 503; the receiver's Retry-After put the probe off",
    );
  });

  it("is given as it was when it names no wait", async () => {
    const written = "5 consecutive failures within 60 s; last: HTTP 500";
    const epId = await storedBefore("open", written);
    expect((await shown(epId)).reason).toBe(written);
    const closed = await storedBefore("closed", "5 successes while half-open");
    expect((await shown(closed)).reason).toBe("5 successes while half-open");
  });
});
