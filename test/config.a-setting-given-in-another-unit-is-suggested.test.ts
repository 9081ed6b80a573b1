/**
 * Settings carry their unit in their name (…_MS, …_SECONDS, …_MINUTES, …_DAYS), and the same
 * kind of setting is in milliseconds in one place and seconds in another. A variable written with
 * the wrong unit (HOOKLINE_SECRET_GRACE_MS) or none (HOOKLINE_RETENTION) was reported as no
 * setting with no suggestion, as was one in lower case: hookline names the setting, and its unit,
 * since the value has to be given in it.
 */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { describeUnknown } from "../src/unknown-settings.js";

const unknown = (name: string) => resolveConfig({ [name]: "1" }).unknownSettings;

describe("a variable that is a setting in another unit", () => {
  it("is pointed at the setting, and told its unit", () => {
    const [grace] = unknown("HOOKLINE_SECRET_GRACE_MS");
    expect(grace).toEqual({
      name: "HOOKLINE_SECRET_GRACE_MS",
      suggestion: "HOOKLINE_SECRET_GRACE_SECONDS",
    });
    expect(describeUnknown(grace!)).toBe(
      "HOOKLINE_SECRET_GRACE_MS is not a hookline setting (did you mean HOOKLINE_SECRET_GRACE_SECONDS, in seconds?); it is ignored",
    );
    expect(describeUnknown(unknown("HOOKLINE_ALERT_QUEUE_LAG_MS")[0]!)).toContain(
      "(did you mean HOOKLINE_ALERT_QUEUE_LAG_SECONDS, in seconds?)",
    );
    expect(describeUnknown(unknown("HOOKLINE_SHUTDOWN_TIMEOUT_SECONDS")[0]!)).toContain(
      "(did you mean HOOKLINE_SHUTDOWN_TIMEOUT_MS, in milliseconds?)",
    );
  });

  it("is pointed at its own setting, not at another whose name is as near in that unit", () => {
    // HOOKLINE_DRILL_INTERVAL_MINUTES and HOOKLINE_ALERT_INTERVAL_SECONDS are a few letters apart:
    // each named in the other's unit was pointed at the other, a setting of another meaning.
    expect(describeUnknown(unknown("HOOKLINE_ALERT_INTERVAL_MINUTES")[0]!)).toContain(
      "(did you mean HOOKLINE_ALERT_INTERVAL_SECONDS, in seconds?)",
    );
    expect(describeUnknown(unknown("HOOKLINE_DRILL_INTERVAL_SECONDS")[0]!)).toContain(
      "(did you mean HOOKLINE_DRILL_INTERVAL_MINUTES, in minutes?)",
    );
    // Minutes are no percentage: a name in a unit its value cannot be converted from is not that
    // setting, and the nearest name is meant.
    expect(unknown("HOOKLINE_ALERT_EXHAUSTION_MINUTES")[0]?.suggestion).toBe(
      "HOOKLINE_ALERT_EXHAUSTION_FOR_MINUTES",
    );
    expect(unknown("HOOKLINE_ALERT_EXHAUSTION_FOR_PERCENT")[0]?.suggestion).toBe(
      "HOOKLINE_ALERT_EXHAUSTION_PERCENT",
    );
  });

  it("is pointed at the setting when it has no unit", () => {
    expect(describeUnknown(unknown("HOOKLINE_RETENTION")[0]!)).toContain(
      "(did you mean HOOKLINE_RETENTION_DAYS, in days?)",
    );
    expect(describeUnknown(unknown("HOOKLINE_DRILL_INTERVAL")[0]!)).toContain(
      "(did you mean HOOKLINE_DRILL_INTERVAL_MINUTES, in minutes?)",
    );
  });

  it("is pointed at the setting when written in lower case", () => {
    expect(unknown("HOOKLINE_port")[0]?.suggestion).toBe("HOOKLINE_PORT");
    expect(unknown("HOOKLINE_Log_Level")[0]?.suggestion).toBe("HOOKLINE_LOG_LEVEL");
  });

  it("is pointed at the setting when written all in lower case, prefix included", () => {
    expect(unknown("hookline_port")[0]).toEqual({
      name: "hookline_port",
      suggestion: "HOOKLINE_PORT",
    });
    expect(unknown("hookline_retention_day")[0]?.suggestion).toBe("HOOKLINE_RETENTION_DAYS");
    expect(unknown("hookline_database_url")[0]?.suggestion).toBe("DATABASE_URL");
    // The CLI reads HOOKLINE_URL and HOOKLINE_TOKEN as written, so another case is ignored too.
    expect(unknown("hookline_url")[0]?.suggestion).toBe("HOOKLINE_URL");
    expect(unknown("HOOKLINE_Token")[0]?.suggestion).toBe("HOOKLINE_TOKEN");
  });
});
