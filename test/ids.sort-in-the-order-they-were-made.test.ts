import { describe, expect, it } from "vitest";
import { hasPrefix, newId } from "../src/ids.js";

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
});
