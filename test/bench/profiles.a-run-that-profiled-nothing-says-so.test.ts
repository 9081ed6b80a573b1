import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { summarizeProfiles } from "../../bench/profile-summary.js";

// `--profile` with scenarios that start no profiled hookline (`--only lag`, `--only ceiling`)
// leaves the run's profile directory unmade: the summary must say so, not end the run in an error
// after its results were written.
describe("the bench's profile summary", () => {
  const dir = mkdtempSync(join(tmpdir(), "hookline-bench-profiles-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("says there are no profiles when the run's directory was never made", () => {
    const missing = join(dir, "never-made");
    expect(summarizeProfiles(missing)).toBe(`no CPU profiles under ${missing}\n`);
  });

  it("says the same of a directory holding none", () => {
    expect(summarizeProfiles(dir)).toBe(`no CPU profiles under ${dir}\n`);
  });
});
