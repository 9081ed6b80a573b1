/**
 * A postgres:// URL that does not parse is nearly always a password holding a character URLs
 * reserve (`/`, `?`, `#`…) unencoded. Start-up says that, without echoing the URL (its password),
 * rather than that it must be the postgres:// URL it plainly is.
 */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { ConfigError } from "../src/errors.js";

describe("a DATABASE_URL that does not parse", () => {
  it("stops start-up saying to percent-encode the user name and password, never showing them", () => {
    for (const bad of [
      "postgres://hookline:pa/ss@db.internal:5432/hookline",
      "postgres://hookline:s3cr?t@db.internal/hookline",
      "postgresql://hookline:se#cret@db.internal/hookline",
      "postgres://db.internal:5432x/hookline",
    ]) {
      let error: unknown;
      try {
        resolveConfig({ DATABASE_URL: bad });
      } catch (err) {
        error = err;
      }
      expect(error, bad).toBeInstanceOf(ConfigError);
      const { message } = error as ConfigError;
      expect(message).toBe(
        "DATABASE_URL is not a valid URL: check its host and port, and percent-encode characters such as @ : / ? # in its user name or password (/ as %2F, ? as %3F, # as %23)",
      );
    }
  });

  it("that is not a postgres:// URL at all is told so, as before", () => {
    for (const bad of ["mysql://db/hookline", "db.internal:5432/hookline"]) {
      expect(() => resolveConfig({ DATABASE_URL: bad })).toThrow(
        new ConfigError("DATABASE_URL must be a postgres:// URL (or unset for embedded SQLite)"),
      );
    }
  });
});
