import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summarizeProfiles } from "../../bench/profile-summary.js";
import { tempDir, useCleanup } from "../support/cleanup.js";

// `--profile` with scenarios that start no profiled hookline (`--only lag`, `--only ceiling`)
// leaves the run's profile directory unmade: the summary must say so, not end the run in an error
// after its results were written.
describe("the bench's profile summary", () => {
  const cleanup = useCleanup();

  it("says there are no profiles when the run's directory was never made", () => {
    const missing = join(tempDir(cleanup, "hookline-bench-profiles-"), "never-made");
    expect(summarizeProfiles(missing)).toBe(`no CPU profiles under ${missing}\n`);
  });

  it("says the same of a directory holding none", () => {
    const dir = tempDir(cleanup, "hookline-bench-profiles-");
    expect(summarizeProfiles(dir)).toBe(`no CPU profiles under ${dir}\n`);
  });
});
