import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { ConfigError } from "../src/errors.js";

describe("the PostgreSQL settings", () => {
  it("default to no DATABASE_URL (SQLite), schema hookline, 10 connections, prepared statements, a 30 s query timeout", () => {
    expect(resolveConfig({})).toMatchObject({
      databaseUrl: null,
      pgSchema: "hookline",
      pgPoolSize: 10,
      pgPreparedStatements: true,
      pgQueryTimeoutMs: 30_000,
    });
  });

  it("are read from the environment", () => {
    const c = resolveConfig({
      DATABASE_URL: " postgres://hookline@db.internal:5432/hookline ",
      HOOKLINE_PG_SCHEMA: "webhooks_eu",
      HOOKLINE_PG_POOL_SIZE: "25",
      HOOKLINE_PG_PREPARED_STATEMENTS: "false",
      HOOKLINE_PG_QUERY_TIMEOUT_MS: "5000",
    });
    expect(c).toMatchObject({
      databaseUrl: "postgres://hookline@db.internal:5432/hookline",
      pgSchema: "webhooks_eu",
      pgPoolSize: 25,
      pgPreparedStatements: false,
      pgQueryTimeoutMs: 5_000,
    });
  });

  it("a bad value stops start-up with a message naming the variable", () => {
    expect(() => resolveConfig({ DATABASE_URL: "mysql://db/hookline" })).toThrow(
      new ConfigError("DATABASE_URL must be a postgres:// URL (or unset for embedded SQLite)"),
    );
    for (const bad of ["Hookline", "hook-line", "1st", "x".repeat(64), 'a"; DROP']) {
      expect(() => resolveConfig({ HOOKLINE_PG_SCHEMA: bad })).toThrow(/HOOKLINE_PG_SCHEMA/);
    }
    expect(() => resolveConfig({ HOOKLINE_PG_POOL_SIZE: "0" })).toThrow(
      new ConfigError('HOOKLINE_PG_POOL_SIZE must be a whole number from 1 to 1000, got "0"'),
    );
    for (const bad of ["999", "3600001", "-1", "30s"]) {
      expect(() => resolveConfig({ HOOKLINE_PG_QUERY_TIMEOUT_MS: bad })).toThrow(
        new ConfigError(
          `HOOKLINE_PG_QUERY_TIMEOUT_MS must be a whole number from 1000 to 3600000, got "${bad}"`,
        ),
      );
    }
    expect(() => resolveConfig({ HOOKLINE_PG_PREPARED_STATEMENTS: "sometimes" })).toThrow(
      new ConfigError(
        'HOOKLINE_PG_PREPARED_STATEMENTS must be 1, true, yes or on, or 0, false, no or off, got "sometimes"',
      ),
    );
  });
});
