/**
 * `hookline dlq …` reads HOOKLINE_URL, defaulting to http://127.0.0.1:8080
 * (docs/configuration.md). Set but empty (`HOOKLINE_URL=` in an env file, or `-e HOOKLINE_URL`
 * from an unset variable) it is unset, as every empty HOOKLINE_* setting is — not a URL of
 * nothing, which fails with "cannot reach hookline at " naming neither a URL nor the variable.
 */
import { expect, it } from "vitest";
import { runCli } from "../support/built-cli.js";
import { TEST_TOKEN } from "../support/process.js";

it("an empty HOOKLINE_URL is the default URL", async () => {
  const { code, err } = await runCli(["dlq", "summary"], {
    HOOKLINE_URL: "",
    HOOKLINE_TOKEN: TEST_TOKEN,
  });
  // Whether or not a hookline answers on the default port, the command went there.
  if (code !== 0) expect(err).toMatch(/127\.0\.0\.1:8080|HOOKLINE_URL/);
  expect(err).not.toMatch(/cannot reach hookline at\s*$/m);
}, 30_000);
