/**
 * Run from the TypeScript sources, a worker thread loads its code bundled into one file (see
 * src/thread-bundle.ts). Its source map must name the real .ts files from where the bundle is, so
 * that a thread's stack trace leads to them whatever directory the process started in.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { workerEntry } from "../src/threads.js";

const starter = new URL("../src/engine/sender-threads.ts", import.meta.url).href;

describe("a thread run from the sources", () => {
  it("loads one bundled file, the same one each time it is asked for", () => {
    const first = workerEntry(starter, "sender-thread");
    expect(first.eval).toBe(false);
    const file = fileURLToPath(first.file as URL);
    expect(file).toMatch(
      /node_modules\/\.cache\/hookline-threads\/sender-thread-[0-9a-f]{16}\.mjs$/,
    );
    expect(existsSync(file)).toBe(true);
    expect(workerEntry(starter, "sender-thread").file).toBe(first.file);
  });

  it("names in its source map the .ts files it was made from, as seen from the bundle", () => {
    const file = fileURLToPath(workerEntry(starter, "sender-thread").file as URL);
    const inline = /sourceMappingURL=data:application\/json;base64,(\S+)/.exec(
      readFileSync(file, "utf8"),
    );
    const map = JSON.parse(Buffer.from(inline![1]!, "base64").toString()) as { sources: string[] };
    expect(map.sources).toContain("../../../src/engine/sender-thread.ts");
    for (const source of map.sources) {
      expect(existsSync(fileURLToPath(new URL(source, `file://${file}`))), source).toBe(true);
    }
  });

  it("is bundled as built hookline's is not: a built starter runs the .js beside it", () => {
    const built = workerEntry(
      "file:///opt/hookline/dist/engine/sender-threads.js",
      "sender-thread",
    );
    expect(built).toEqual({
      file: new URL("file:///opt/hookline/dist/engine/sender-thread.js"),
      eval: false,
    });
  });
});
