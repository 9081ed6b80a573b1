/**
 * A rotation on PostgreSQL whose machine goes down mid-batch (or whose process hangs, here frozen
 * with SIGSTOP) leaves its connection open, as far as the server knows, and its transaction with
 * it, holding the rows of its batch locked: the server hears of a vanished client only when TCP
 * keep-alive gives up on it, two hours and more by default. Running the command again then waited
 * on those rows and failed (`Query read timeout`), and hookline's own writes to them waited too,
 * for as long. The server now ends a transaction of the command left idle longer than
 * HOOKLINE_PG_QUERY_TIMEOUT_MS, and the rerun, waiting for that, goes through.
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { FieldCipher, keyId } from "../../src/security/cipher.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { freezeInTransaction, runCli, spawnCli } from "../support/built-cli.js";
import { useCleanup } from "../support/cleanup.js";
import { fillStore, watchPostgres } from "../support/key-rotation.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { stopAfter } from "../support/process.js";

const cleanup = useCleanup();

it("the rerun goes through once the server has ended the hanging one's transaction", async () => {
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  const [old, key] = [randomBytes(32), randomBytes(32)];
  const store = await PostgresStore.open({
    connectionString: TEST_DATABASE_URL,
    schema,
    poolSize: 8,
    cipher: new FieldCipher(old),
  });
  await fillStore(store, 1_000);
  await store.close();
  const env = {
    DATABASE_URL: TEST_DATABASE_URL,
    HOOKLINE_PG_SCHEMA: schema,
    HOOKLINE_ENCRYPTION_KEY: key.toString("base64"),
    HOOKLINE_ENCRYPTION_OLD_KEYS: old.toString("base64"),
    HOOKLINE_PG_QUERY_TIMEOUT_MS: "2000",
  };
  const watch = watchPostgres(schema);
  const messages = (await watch.rows()).filter((r) => r.table === "messages");

  const hanging = stopAfter(
    cleanup,
    spawnCli(["keys", "rotate", "--batch-size", "20"], env),
    "SIGKILL",
  );
  while (!(await watch.sealedWith(messages[100]!, keyId(key)))) {
    await new Promise((r) => setTimeout(r, 5));
  }
  await freezeInTransaction(hanging, schema);

  const again = await runCli(["keys", "rotate", "--batch-size", "20"], env);
  expect(again.code, again.out + again.err).toBe(0);
  expect(again.out).toContain("done: the old keys may now be removed");
  expect(await watch.notSealedWith(keyId(key))).toBe(0);
}, 60_000);
