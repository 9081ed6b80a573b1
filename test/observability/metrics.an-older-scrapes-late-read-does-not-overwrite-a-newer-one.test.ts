/**
 * Each /metrics scrape reads from the store which endpoints with series of their own are disabled
 * (`hookline_endpoint_disabled`), waiting at most PROBE_WAIT_MS; a read that takes longer keeps
 * going. On a slow store an older scrape's read could finish after a newer one's and put back
 * what the store said before, so a scrape that could not read the store showed an endpoint
 * disabled since as enabled, and HooklineEndpointFailing counted it again. Here the store's
 * answers are held and let go in the order the test chooses; the newer read wins.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { EndpointSlots } from "../../src/observability/endpoint-slots.js";
import { StoredEndpointStates } from "../../src/observability/endpoint-states.js";
import type { EndpointStopped, Store } from "../../src/store/port.js";
import { startEngine, type EngineHarness } from "../support/engine.js";
import { withOverrides } from "../support/overrides.js";

/** One call of listStoppedEndpoints, made at once, whose answer the test lets go of. */
interface HeldAnswer {
  answered: Promise<void>;
  release(failWith?: Error): void;
}

let h: EngineHarness;
beforeAll(async () => {
  h = await startEngine();
});
afterAll(() => h.close());

/** The store, with each listStoppedEndpoints answer held while `holding` is true. */
function heldStore(target: Store) {
  const held: HeldAnswer[] = [];
  let holding = true;
  const store = withOverrides<Store>(target, {
    async listStoppedEndpoints(ids: string[]): Promise<Map<string, EndpointStopped>> {
      const answer = target.listStoppedEndpoints(ids);
      if (!holding) return answer;
      let answeredIt!: () => void;
      let letGo!: (failWith?: Error) => void;
      const gate = new Promise<Error | undefined>((r) => (letGo = r));
      held.push({ answered: new Promise((r) => (answeredIt = r)), release: letGo });
      const result = await answer;
      answeredIt();
      const failure = await gate;
      if (failure) throw failure;
      return result;
    },
  });
  return { store, held, hold: (on: boolean) => (holding = on) };
}

describe("an older scrape's read of disabled endpoints that finishes late", () => {
  it("does not overwrite what a newer scrape read", async () => {
    const ep = await h.addEndpoint("http://127.0.0.1:9/never");
    const { store, held, hold } = heldStore(h.store);
    const slots = new EndpointSlots(10, 60_000, () => {});
    const states = new StoredEndpointStates({
      store,
      engine: h.engine,
      clock: systemClock,
      slots,
      maxEndpoints: 10,
      deletedLately: () => false,
    });
    expect(slots.label(ep.id, systemClock.now())).toBe(ep.id);

    // The older scrape reads the endpoint enabled; its answer is slow to come back.
    const older = states.recheck();
    await held[0]!.answered;
    const disabled = { ...ep, disabled: true, updatedAt: systemClock.now() };
    expect(await h.store.updateEndpoint(disabled)).toBe(true);
    // The newer scrape reads it disabled, and its answer comes first.
    const newer = states.recheck();
    await held[1]!.answered;
    held[1]!.release();
    await newer;
    expect([...states.disabled()]).toEqual([ep.id]);

    held[0]!.release();
    await older;
    expect([...states.disabled()]).toEqual([ep.id]);

    // A scrape that cannot read the store shows it as the newest read taken had it.
    const failing = states.recheck();
    await held[2]!.answered;
    held[2]!.release(new Error("the store is unavailable"));
    await expect(failing).rejects.toThrow("unavailable");
    expect([...states.disabled()]).toEqual([ep.id]);

    // Enabled again, the next read that answers shows it so.
    hold(false);
    expect(await h.store.updateEndpoint({ ...disabled, disabled: false })).toBe(true);
    await states.recheck();
    expect([...states.disabled()]).toEqual([]);
  });
});
