/**
 * The bench's options that take a value take it as the next word or after "=", as `--only` did:
 * `--hookline=<dir>` was refused as an unknown option, so a comparison run written that way
 * stopped before it began; bench/store-turns.ts ignored it and measured this checkout instead.
 */
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { optionValue, parseArgs } from "../../bench/lib/args.js";

const SCENARIOS = ["ceiling", "drain"];

describe("the bench's command line", () => {
  it("takes --hookline's directory after = as after a space", () => {
    for (const argv of [["--hookline=../other"], ["--hookline", "../other"]]) {
      expect(parseArgs(argv, SCENARIOS)).toMatchObject({ hookline: resolve("../other") });
    }
  });

  it("refuses --hookline= with no directory, naming the option", () => {
    expect(() => parseArgs(["--hookline="], SCENARIOS)).toThrow(/--hookline needs a directory/);
    expect(() => parseArgs(["--hookline"], SCENARIOS)).toThrow(/--hookline needs a directory/);
  });

  it("still takes --only either way, and refuses an unknown scenario", () => {
    expect(parseArgs(["--only=drain", "--only", "ceiling"], SCENARIOS)).toMatchObject({
      only: ["drain", "ceiling"],
    });
    expect(() => parseArgs(["--only=nope"], SCENARIOS)).toThrow(/no scenario "nope"/);
  });

  it("reads a script's option after = or a space, and refuses one without a value", () => {
    expect(optionValue(["--turns", "5", "--hookline=../other"], "--hookline")).toBe("../other");
    expect(optionValue(["--hookline", "../other"], "--hookline")).toBe("../other");
    expect(optionValue(["--turns", "5"], "--hookline")).toBeUndefined();
    expect(() => optionValue(["--hookline="], "--hookline")).toThrow(/--hookline needs a value/);
    expect(() => optionValue(["--hookline", "--turns", "5"], "--hookline")).toThrow(
      /--hookline needs a value/,
    );
  });
});
