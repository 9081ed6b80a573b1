/**
 * A single replay's answer, read back from the record's history, says when the receiver asked to
 * be tried again. hookline now writes "asked for no wait", as the dashboard and the CLI say it,
 * where it wrote "asked to be tried again at once"; an entry an older hookline wrote is still read.
 */
import { describe, expect, it } from "vitest";
import { askedToWaitIn } from "../../src/store/dead-letter-text.js";

describe("the Retry-After part of a replay's history entry", () => {
  it("is read in each wording hookline has written", () => {
    for (const said of [
      "the receiver asked to wait 30 s (Retry-After)",
      "the receiver asked for no wait (Retry-After)",
      "the receiver asked to be tried again at once (Retry-After)",
    ]) {
      expect(askedToWaitIn(`failed: HTTP 429 in 3 ms; ${said}`)).toBe(said);
    }
  });

  it("is none in an entry without one", () => {
    expect(askedToWaitIn("failed: HTTP 429 in 3 ms")).toBeNull();
  });
});
