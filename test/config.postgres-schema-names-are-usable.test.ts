/**
 * A HOOKLINE_PG_SCHEMA that resolveConfig accepts must work: either the setting is refused at
 * start-up naming HOOKLINE_PG_SCHEMA, or hookline can make its tables there and signal through it.
 * Today some names pass the check (a reserved word, the `pg_` prefix PostgreSQL keeps for itself,
 * a name of 55–63 characters) and then fail later: at migration, blamed on DATABASE_URL, or — the
 * long name — only when a process signals the others ("channel name too long"), so an API process's
 * new messages never wake the workers.
 */
import { describe, expect, it } from "vitest";
import { resolveConfig, type Config } from "../src/config.js";
import { ConfigError } from "../src/errors.js";
import { openStore } from "../src/store/factory.js";
import type { Signal } from "../src/store/coordination.js";
import { useCleanup } from "./support/cleanup.js";
import { dropSchema, TEST_DATABASE_URL } from "./support/postgres.js";

const cleanup = useCleanup({ ignoreFailures: true });

/** The settings for `schema`, or the ConfigError that refuses it. */
function settingsFor(schema: string): Readonly<Config> | ConfigError {
  try {
    return resolveConfig({ DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema });
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
}

describe("a HOOKLINE_PG_SCHEMA that is accepted", () => {
  it.each([
    ["a reserved word", "user"],
    ["the pg_ prefix", "pg_hookline"],
    ["63 characters, the documented longest", `h${"x".repeat(62)}`],
  ])(
    "%s: is refused naming the setting, or works",
    async (_what, schema) => {
      const config = settingsFor(schema);
      if (config instanceof ConfigError) {
        expect(config.message).toMatch(/HOOKLINE_PG_SCHEMA/);
        return;
      }
      cleanup.push(() => dropSchema(schema));
      const [a, b] = [openStore(config), openStore(config)];
      cleanup.push(
        () => a.close(),
        () => b.close(),
      );
      await a.verifySealing();
      const heard: Signal[] = [];
      const unsubscribe = await b.coordination!.subscribe(
        () => "wkr_b",
        (s) => heard.push(...s),
        () => {},
      );
      cleanup.push(unsubscribe);
      await a.coordination!.publish("wkr_a", [{ kind: "wake", dueAt: 1 }]);
      for (let i = 0; i < 100 && heard.length === 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(heard).toEqual([{ kind: "wake", dueAt: 1 }]);
    },
    30_000,
  );
});
