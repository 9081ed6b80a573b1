import { describe, expect, it, vi } from "vitest";
import { SignallingControl } from "../../src/engine/signalling.js";
import type { Signal, WorkerCoordination } from "../../src/store/coordination.js";

/** A coordination whose first `failures` publishes fail, as a NOTIFY on a broken connection does. */
function flakyCoordination(failures: number) {
  const sent: Signal[][] = [];
  let left = failures;
  const coordination = {
    publish: async (_from: string, signals: readonly Signal[]) => {
      if (left-- > 0) throw new Error("connection terminated");
      sent.push([...signals]);
    },
  } as unknown as WorkerCoordination;
  return { coordination, sent };
}

describe("signalling", () => {
  it("sends a settings change again when its notification failed", async () => {
    // The change is committed before the signal goes out: a lost signal left the worker owning
    // the endpoint on its old URL, secret or disabled flag until something else reloaded it.
    const { coordination, sent } = flakyCoordination(2);
    const warnings: string[] = [];
    const control = new SignallingControl(null, coordination, () => "wkr_api", {
      warn: (_obj, msg) => warnings.push(msg),
    });
    control.invalidateEndpoint("ep_1");
    control.invalidateApplication("app_1");
    control.invalidateEndpoint("ep_1");

    await vi.waitFor(() => expect(sent.length).toBe(1), { timeout: 10_000, interval: 50 });
    expect(sent[0]).toEqual([
      { kind: "endpoint", id: "ep_1" },
      { kind: "app", id: "app_1" },
    ]);
    // One warning for the streak of failures, not one a try.
    expect(warnings).toHaveLength(1);
  });

  it("does not send a wake-up again: the workers' heartbeats find the work", async () => {
    const { coordination, sent } = flakyCoordination(1);
    const control = new SignallingControl(null, coordination, () => "wkr_api", { warn: () => {} });
    control.wake(1_000);
    control.invalidateEndpoint("ep_2");
    await vi.waitFor(() => expect(sent.length).toBe(1), { timeout: 10_000, interval: 50 });
    expect(sent[0]).toEqual([{ kind: "endpoint", id: "ep_2" }]);
  });
});
