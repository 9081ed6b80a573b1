/**
 * Resolved alerts are kept for 24 hours (docs/architecture.md, "Data model"). They used to be
 * deleted only as part of saving another alert, so after a quiet spell a resolved alert stayed in
 * the store for as long as no other alert fired or resolved. The evaluator forgets them at every
 * evaluation now, whatever it has to save.
 */
import { afterAll, describe, expect, it } from "vitest";
import { RESOLVED_LISTED_MS } from "../../src/observability/evaluator.js";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { anAlert, saveAlerts } from "../store/behaviour/fixtures.js";

let h: TestHookline | null = null;
afterAll(() => h?.stop());

describe("a resolved alert", () => {
  it("is gone from the store a day after it resolved, with no other alert saved", async () => {
    const clock = new FakeClock(Date.now());
    h = await startHookline({ overrides: { clock } });
    const { store } = h.hookline;
    const { evaluator } = h.hookline.observability;
    const resolvedAt = clock.now();
    await saveAlerts(store, "wkr_earlier", [
      anAlert("alrt_resolved", { since: resolvedAt - 60_000, resolvedAt }),
    ]);
    const kept = async () => (await store.listAlerts({ resolvedSince: 0 })).map((a) => a.id);

    clock.advance(RESOLVED_LISTED_MS - 60_000);
    await evaluator.tick();
    expect(await kept()).toEqual(["alrt_resolved"]);

    clock.advance(2 * 60_000);
    await evaluator.tick();
    expect(await kept()).toEqual([]);
  });
});
