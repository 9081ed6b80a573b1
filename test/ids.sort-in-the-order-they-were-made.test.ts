import { describe, expect, it } from "vitest";
import { firstIdAt, hasPrefix, newId } from "../src/ids.js";

describe("ids", () => {
  it("are prefixed, unique and sort in the order they were made, within and across milliseconds", () => {
    const ids: string[] = [];
    // More milliseconds than one draw of random bytes covers, several ids in some of them.
    for (let ms = 1; ms <= 1_000; ms++) {
      for (let i = 0; i < (ms % 3) + 1; i++) ids.push(newId("msg", 1_700_000_000_000 + ms));
    }
    for (const id of ids) expect(hasPrefix(id, "msg")).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it("a clock that steps back still gives ids after the previous ones", () => {
    const first = newId("dlv", 1_800_000_000_000);
    const after = newId("dlv", 1_000);
    expect(hasPrefix(after, "dlv")).toBe(true);
    expect(after > first).toBe(true);
  });

  it("the first id of a time sorts after earlier times' and not after any id made at or after it", () => {
    const at = 1_900_000_000_000;
    const made = [newId("atmpt", at), newId("atmpt", at), newId("atmpt", at + 1)];
    const first = firstIdAt("atmpt", at);
    expect(hasPrefix(first, "atmpt")).toBe(true);
    // Not an id made "before": ids only grow, so one made after a later one (another test's, in
    // this worker) carries that later time. Which is what reads from firstIdAt rely on.
    expect(firstIdAt("atmpt", at - 1) < first).toBe(true);
    for (const id of made) expect(id >= first).toBe(true);
    // Out of range times are held to the range ids can say.
    expect(firstIdAt("atmpt", -5)).toBe(firstIdAt("atmpt", 0));
    expect(firstIdAt("atmpt", Number.MAX_SAFE_INTEGER) > newId("atmpt")).toBe(true);
  });
});
