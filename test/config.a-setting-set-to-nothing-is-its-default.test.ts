/**
 * An environment file or a compose file often carries a setting with no value (`HOOKLINE_PORT=`),
 * or one a template left as spaces. Every setting takes that as unset, its default, as
 * docs/configuration.md says; none refuses it or reads it as a value. The settings are the ones
 * that page lists (which config.an-unknown-hookline-variable-is-reported checks), so a setting
 * added later is covered too.
 */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";

const documented = [
  ...readFileSync(new URL("../docs/configuration.md", import.meta.url), "utf8").matchAll(
    /^\| `((?:HOOKLINE_|DATABASE_)[A-Z_]+)` +\|/gm,
  ),
]
  .map((m) => m[1]!)
  // Read by the CLI's client commands, not by serve.
  .filter((name) => name !== "HOOKLINE_URL" && name !== "HOOKLINE_TOKEN");

it("takes every setting set to nothing, or to spaces, as unset", () => {
  const defaults = resolveConfig({});
  for (const name of documented) {
    for (const value of ["", "   "]) {
      expect(resolveConfig({ [name]: value }), `${name}=${JSON.stringify(value)}`).toEqual(
        defaults,
      );
    }
  }
});
