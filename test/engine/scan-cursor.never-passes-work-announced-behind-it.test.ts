import { describe, it, expect } from "vitest";
import { ScanCursor } from "../../src/engine/scan-cursor.js";
import { SCAN_START } from "../../src/store/port.js";

const NOW = 1_000_000;

describe("the scan cursor", () => {
  it("moves to where a scan stopped, or to now when the scan looked at everything due", () => {
    const c = new ScanCursor();
    c.beginClaim();
    c.scanned({ due: NOW - 50, row: 7 }, NOW);
    expect(c.position).toEqual({ due: NOW - 50, row: 7 });
    c.beginClaim();
    c.scanned(null, NOW);
    expect(c.position).toEqual({ due: NOW, row: SCAN_START.row });
    // A scan never moves it back.
    c.beginClaim();
    c.scanned({ due: NOW - 10, row: 1 }, NOW - 10);
    expect(c.position).toEqual({ due: NOW, row: SCAN_START.row });
  });

  it("goes back to work announced behind it, and not for work announced ahead", () => {
    const c = new ScanCursor();
    c.scanned(null, NOW);
    c.announce(NOW + 500);
    expect(c.position.due).toBe(NOW);
    c.announce(NOW - 200);
    expect(c.position).toEqual({ due: NOW - 200, row: SCAN_START.row });
  });

  it("does not move past work announced while a claim ran", () => {
    const c = new ScanCursor();
    c.beginClaim();
    // Committed during the claim's round trip, invisible to it.
    c.announce(NOW - 300);
    c.scanned({ due: NOW - 100, row: 42 }, NOW);
    expect(c.position).toEqual({ due: NOW - 300, row: SCAN_START.row });
    // The next claim starts afresh.
    c.beginClaim();
    c.scanned({ due: NOW - 100, row: 42 }, NOW);
    expect(c.position).toEqual({ due: NOW - 100, row: 42 });
  });

  it("is quiet until the next due time once caught up, unless work came during the scan", () => {
    const c = new ScanCursor();
    const began = c.beginClaim();
    c.scanned(null, NOW);
    c.caughtUp(NOW + 1_000, began);
    expect(c.isQuiet(NOW)).toBe(true);
    expect(c.isQuiet(NOW + 1_000)).toBe(false);

    const again = c.beginClaim();
    c.announce(NOW);
    c.caughtUp(NOW + 1_000, again);
    expect(c.isQuiet(NOW)).toBe(false);
  });

  it("stays quiet forever with nothing pending, until anything is announced or it is told", () => {
    const c = new ScanCursor();
    c.caughtUp(null, c.beginClaim());
    expect(c.isQuiet(Number.MAX_SAFE_INTEGER)).toBe(true);
    c.announce(NOW);
    expect(c.isQuiet(NOW)).toBe(false);

    c.caughtUp(null, c.beginClaim());
    c.unquiet();
    expect(c.isQuiet(NOW)).toBe(false);

    c.caughtUp(null, c.beginClaim());
    c.restart();
    expect(c.isQuiet(NOW)).toBe(false);
    expect(c.position).toEqual(SCAN_START);
  });

  it("shortens the quiet for work due later instead of looking again now", () => {
    const c = new ScanCursor();
    c.scanned(null, NOW);
    c.caughtUp(NOW + 10_000, c.beginClaim());
    expect(c.quietUntilDue(NOW + 2_000, NOW)).toBe(true);
    expect(c.position.due).toBe(NOW);
    expect(c.isQuiet(NOW + 1_999)).toBe(true);
    expect(c.isQuiet(NOW + 2_000)).toBe(false);
    // Due now, or not quiet at all: it has to be announced.
    expect(c.quietUntilDue(NOW, NOW)).toBe(false);
    c.unquiet();
    expect(c.quietUntilDue(NOW + 2_000, NOW)).toBe(false);
  });
});
