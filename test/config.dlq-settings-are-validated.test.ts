import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { ConfigError } from "../src/errors.js";

describe("the dead-letter queue's settings", () => {
  it("default to 30 days' retention, 10,000 open records per endpoint, 5 failed replays", () => {
    const c = resolveConfig({});
    expect(c).toMatchObject({
      retentionMs: 30 * 86_400_000,
      dlqMaxPerEndpoint: 10_000,
      dlqMaxReplays: 5,
      dlqReplayRate: 5,
      dlqCanarySize: 10,
      dlqCanaryThreshold: 0.9,
    });
  });

  it("are read from the environment", () => {
    const c = resolveConfig({
      HOOKLINE_RETENTION_DAYS: "7",
      HOOKLINE_DLQ_MAX_PER_ENDPOINT: "500",
      HOOKLINE_DLQ_MAX_REPLAYS: "0",
      HOOKLINE_DLQ_REPLAY_RATE: "50",
      HOOKLINE_DLQ_CANARY_SIZE: "0",
      HOOKLINE_DLQ_CANARY_THRESHOLD_PERCENT: "100",
    });
    expect(c).toMatchObject({
      retentionMs: 7 * 86_400_000,
      dlqMaxPerEndpoint: 500,
      dlqMaxReplays: 0,
      dlqReplayRate: 50,
      dlqCanarySize: 0,
      dlqCanaryThreshold: 1,
    });
  });

  it("a bad value stops start-up with a message naming the variable", () => {
    expect(() => resolveConfig({ HOOKLINE_RETENTION_DAYS: "0" })).toThrow(
      new ConfigError('HOOKLINE_RETENTION_DAYS must be a whole number from 1 to 3650, got "0"'),
    );
    expect(() => resolveConfig({ HOOKLINE_DLQ_CANARY_THRESHOLD_PERCENT: "0.9" })).toThrow(
      /HOOKLINE_DLQ_CANARY_THRESHOLD_PERCENT must be a whole number from 0 to 100/,
    );
    expect(() => resolveConfig({ HOOKLINE_DLQ_MAX_PER_ENDPOINT: "lots" })).toThrow(
      /HOOKLINE_DLQ_MAX_PER_ENDPOINT/,
    );
  });
});
