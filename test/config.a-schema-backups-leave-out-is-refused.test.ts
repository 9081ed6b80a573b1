/**
 * HOOKLINE_PG_SCHEMA=information_schema passed the check (it does not start with pg_), and with a
 * role allowed to (a superuser, often what a first try runs as) hookline made its tables there and
 * ran. pg_dump leaves that schema out, as PostgreSQL's own: every backup taken of the database
 * held none of hookline's data, and nothing said so. It is refused like the pg_ names.
 */
import { expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";

it("refuses information_schema, which PostgreSQL keeps for itself", () => {
  for (const name of ["information_schema", " information_schema "]) {
    expect(() =>
      resolveConfig({ DATABASE_URL: "postgres://127.0.0.1/hookline", HOOKLINE_PG_SCHEMA: name }),
    ).toThrow(
      'HOOKLINE_PG_SCHEMA must be a name not starting with pg_ nor information_schema (PostgreSQL keeps those for itself, and pg_dump leaves them out), got "information_schema"',
    );
  }
});

it("takes a name that only contains it", () => {
  const config = resolveConfig({ HOOKLINE_PG_SCHEMA: "hookline_information_schema" });
  expect(config.pgSchema).toBe("hookline_information_schema");
});
