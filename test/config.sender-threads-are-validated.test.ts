import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { ConfigError } from "../src/errors.js";

describe("HOOKLINE_SENDER_THREADS", () => {
  it("defaults to one sender thread when there is a second core, none on one core", () => {
    expect(resolveConfig({}).senderThreads).toBe(availableParallelism() >= 2 ? 1 : 0);
  });

  it("can be set, 0 meaning the main thread sends", () => {
    expect(resolveConfig({ HOOKLINE_SENDER_THREADS: "0" }).senderThreads).toBe(0);
    expect(resolveConfig({ HOOKLINE_SENDER_THREADS: "3" }).senderThreads).toBe(3);
  });

  it("refuses what is not a whole number in range, naming the variable", () => {
    for (const bad of ["-1", "65", "two", "1.5"]) {
      expect(() => resolveConfig({ HOOKLINE_SENDER_THREADS: bad })).toThrow(ConfigError);
      expect(() => resolveConfig({ HOOKLINE_SENDER_THREADS: bad })).toThrow(
        /HOOKLINE_SENDER_THREADS/,
      );
    }
  });
});
