/**
 * An operator who presses Ctrl-C during `hookline keys rotate` (a rotation of a big store takes
 * minutes) needs to know what state it left and what to do: it used to die at once without a
 * word, leaving them to guess whether the old key could go. Once, it ends the batch under way,
 * says how far it got, that the old keys must stay, and to run it again; running it again does
 * the rest. On both stores: SQLite's batches run synchronously, and a signal was not even heard
 * between them.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { expect, it } from "vitest";
import { FieldCipher, keyId } from "../../src/security/cipher.js";
import type { Store } from "../../src/store/port.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { runCli, spawnCli } from "../support/built-cli.js";
import { tempDir, useCleanup, type Cleanup } from "../support/cleanup.js";
import {
  fillStore,
  watchPostgres,
  watchSqlite,
  type RotationWatch,
} from "../support/key-rotation.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";

const cleanup = useCleanup();

// Small batches, so the rotation of 3,000 messages takes long enough for the press to land in it
// on a machine loaded by other tests (at 10 a batch it ends within about a second).
const BATCH = 2;

/** A store of each kind: the settings naming it, opening it sealed with a cipher, watching it. */
const stores: Record<
  "sqlite" | "postgres",
  (cleanup: Cleanup) => {
    settings: Record<string, string>;
    open(cipher: FieldCipher): Promise<Store>;
    watch(): RotationWatch;
  }
> = {
  sqlite: (cleanup) => {
    const dir = tempDir(cleanup, "hookline-rotate-ctrl-c-");
    const file = join(dir, "hookline.db");
    return {
      settings: { HOOKLINE_DATA_DIR: dir },
      open: async (cipher) => new SqliteStore({ path: file, synchronous: "normal", cipher }),
      watch: () => watchSqlite(file),
    };
  },
  postgres: (cleanup) => {
    const schema = freshSchemaName();
    cleanup.push(() => dropSchema(schema));
    return {
      settings: { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema },
      open: (cipher) =>
        PostgresStore.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 8, cipher }),
      watch: () => watchPostgres(schema),
    };
  },
};

it.each(["sqlite", "postgres"] as const)(
  "on %s, Ctrl-C ends the batch under way, says how far it got and to run it again, which finishes",
  async (kind) => {
    const store = stores[kind](cleanup);
    const [old, key] = [randomBytes(32), randomBytes(32)];
    const filled = await store.open(new FieldCipher(old));
    await fillStore(filled);
    await filled.close();
    const env = {
      ...store.settings,
      HOOKLINE_ENCRYPTION_KEY: key.toString("base64"),
      HOOKLINE_ENCRYPTION_OLD_KEYS: old.toString("base64"),
    };
    const watch = store.watch();
    cleanup.push(() => watch.close());
    const messages = (await watch.rows()).filter((r) => r.table === "messages");

    const run = spawnCli(["keys", "rotate", "--batch-size", String(BATCH)], env);
    // Pressed once some messages are done and most are not.
    const pressAt = messages[5 * BATCH]!;
    while (!(await watch.sealedWith(pressAt, keyId(key)))) {
      await new Promise((r) => setTimeout(r, 5));
    }
    run.child.kill("SIGINT");
    expect(await run.exited, run.out() + run.err()).toBe(130);

    // Stopped between two batches: the messages it counts are done, and no others.
    const done = Number(/messages: (\d+) rewritten of \1\n/.exec(run.out())?.[1]);
    expect(done % BATCH, run.out()).toBe(0);
    expect(await watch.notSealedWith(keyId(key))).toBe(messages.length - done);
    expect(run.out()).toContain("endpoints: 4 rewritten of 4\n");
    expect(run.out()).not.toContain("idempotency_keys");
    expect(run.out()).not.toContain("done");
    expect(run.err()).toBe(
      "hookline: stopped by SIGINT while re-encrypting messages, between two batches: the rows " +
        "rewritten so far stay so, and the others are as they were, some sealed with the old " +
        "keys: keep HOOKLINE_ENCRYPTION_OLD_KEYS as it is, and run `hookline keys rotate` again " +
        "to finish (it passes over the rows already rewritten)\n",
    );

    const again = await runCli(["keys", "rotate", "--batch-size", String(BATCH)], env);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain(
      `messages: ${messages.length - done} rewritten of ${messages.length}\n`,
    );
    expect(again.out).toContain("done: the old keys may now be removed");
    expect(await watch.notSealedWith(keyId(key))).toBe(0);
  },
  60_000,
);
