/**
 * hookline's version, read once from package.json (one level above both src/ and dist/): the
 * deliveries' user-agent and `hookline --version` say it, so neither lags behind a release.
 */
import { readFileSync } from "node:fs";

export const VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;
