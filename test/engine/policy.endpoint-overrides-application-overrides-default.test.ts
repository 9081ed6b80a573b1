import { describe, expect, it } from "vitest";
import { PRESETS } from "../../src/engine/ladder.js";
import { resolvePolicy, validatePolicy } from "../../src/engine/policy.js";
import { ValidationError } from "../../src/errors.js";

const defaults = { retry: PRESETS.default, concurrencyLimit: 100, timeoutMs: 15_000 };

describe("delivery policy resolution", () => {
  it("takes each field from the endpoint, else the application, else the defaults", () => {
    const p = resolvePolicy(
      defaults,
      { retry: { preset: "svix" }, concurrencyLimit: 20, timeoutMs: 5_000 },
      { concurrencyLimit: 3 },
    );
    expect(p.ladder.name).toBe("svix");
    expect(p.source.retry).toBe("application");
    expect(p.concurrencyLimit).toBe(3);
    expect(p.timeoutMs).toBe(5_000);
    expect([...p.permanentStatuses].sort()).toEqual([400, 404, 405, 410, 413, 415, 422]);
    const none = resolvePolicy(defaults, null, null);
    expect(none.ladder.attempts).toBe(8);
    expect(none.source.retry).toBe("default");
    expect(none.concurrencyLimit).toBe(100);
  });

  it("rejects bad policies naming every bad field", () => {
    try {
      validatePolicy(
        { concurrencyLimit: 0, timeoutMs: 60_000, permanentStatuses: [429, "x"], speed: 1 },
        ["body", "deliveryPolicy"],
      );
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      const locs = (err as ValidationError).problems.map((p) => p.loc.join("."));
      expect(locs).toEqual(
        expect.arrayContaining([
          "body.deliveryPolicy.concurrencyLimit",
          "body.deliveryPolicy.timeoutMs",
          "body.deliveryPolicy.permanentStatuses.0",
          "body.deliveryPolicy.permanentStatuses.1",
          "body.deliveryPolicy.speed",
        ]),
      );
    }
  });
});
