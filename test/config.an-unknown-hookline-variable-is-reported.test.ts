/**
 * A HOOKLINE_* variable that is no setting (a typo, a setting of another version) is reported at
 * start with the setting it most likely meant, instead of being ignored without a word; and the
 * settings hookline reads are exactly those docs/configuration.md lists.
 */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { describeUnknown } from "../src/unknown-settings.js";
import { readFileSync } from "node:fs";
import { tempDir, useCleanup } from "./support/cleanup.js";
import { runHookline } from "./support/process.js";

const cleanup = useCleanup();

const DOCUMENTED = [
  ...readFileSync(new URL("../docs/configuration.md", import.meta.url), "utf8").matchAll(
    /^\| `(HOOKLINE_[A-Z0-9_]+)`/gm,
  ),
].map((m) => m[1]!);

describe("an unknown HOOKLINE_* variable", () => {
  it("is reported with the setting a typo most likely meant", () => {
    const c = resolveConfig({
      HOOKLINE_RETENTION_DAY: "7",
      HOOKLINE_SECRET_GRACE_SECOND: "5",
      HOOKLINE_COLOUR: "blue",
      HOOKLINE_PORT: "9000",
    });
    expect(c.unknownSettings).toEqual([
      { name: "HOOKLINE_COLOUR", suggestion: null },
      { name: "HOOKLINE_RETENTION_DAY", suggestion: "HOOKLINE_RETENTION_DAYS" },
      { name: "HOOKLINE_SECRET_GRACE_SECOND", suggestion: "HOOKLINE_SECRET_GRACE_SECONDS" },
    ]);
    expect(describeUnknown(c.unknownSettings[1]!)).toBe(
      "HOOKLINE_RETENTION_DAY is not a hookline setting (did you mean HOOKLINE_RETENTION_DAYS?); it is ignored",
    );
  });

  it("leaves other variables, and the CLI's own HOOKLINE_URL and HOOKLINE_TOKEN, alone", () => {
    const c = resolveConfig({ PATH: "/bin", HOOKLINE_URL: "http://x", HOOKLINE_TOKEN: "t" });
    expect(c.unknownSettings).toEqual([]);
  });

  it("is never a documented setting, and every setting read is documented", () => {
    expect(DOCUMENTED.length).toBeGreaterThan(40);
    const all = Object.fromEntries(DOCUMENTED.map((n) => [n, ""]));
    expect(resolveConfig(all).unknownSettings).toEqual([]);
    const read = new Set<string>();
    resolveConfig(
      new Proxy({} as Record<string, string | undefined>, {
        get: (_t, name) => void (typeof name === "string" && read.add(name)),
      }),
    );
    const undocumented = [...read].filter(
      (n) => n.startsWith("HOOKLINE_") && !DOCUMENTED.includes(n),
    );
    expect(undocumented).toEqual([]);
  });

  it("is shown by serve in its start-up banner", async () => {
    const dir = tempDir(cleanup, "hookline-unknown-setting-");
    const h = await runHookline(cleanup, dir, { HOOKLINE_RETENTION_DAY: "7" });
    expect(h.output()).toContain(
      "WARNING:      HOOKLINE_RETENTION_DAY is not a hookline setting (did you mean HOOKLINE_RETENTION_DAYS?)",
    );
  });
});
