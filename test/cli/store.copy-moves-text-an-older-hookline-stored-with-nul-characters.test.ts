/**
 * A hookline from before NUL characters were kept out of the store recorded a receiver's answer
 * as it came, NUL bytes and all, and its API took a NUL in a name. SQLite holds them; a PostgreSQL
 * text column cannot, and one such value refused the whole copy. The copy writes each NUL as
 * U+FFFD, as hookline records a receiver's NUL now, and says how many values it changed.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { deliveryOf, startHookline } from "../support/hookline.js";
import { aSchemaName } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";
import { copyToSchema, startHooklineOnTheCopy } from "../support/store-copy.js";

const cleanup = useCleanup();

it("copies text holding NUL characters with U+FFFD in their place, and says so", async () => {
  const dataDir = tempDir(cleanup, "hookline-copy-nul-");
  const schema = aSchemaName(cleanup);
  const rx = await Receiver.start(() => ({ status: 200, body: "ok then more" }));
  cleanup.push(() => rx.close());

  const sqlite = await startHookline({ dataDir });
  cleanup.push(() => sqlite.stop(true));
  const app = await sqlite.svix.application.create({ name: "Acme Inc", uid: "acme" });
  const ep = await sqlite.svix.endpoint.create(app.id, { url: rx.url("/hook") });
  const msg = await sqlite.svix.message.create(app.id, { eventType: "e", payload: { a: 1 } });
  await sqlite.waitFor(deliveryOf(msg.id, "succeeded", ep.id));
  await sqlite.stop(true);
  // What an older hookline left: the receiver's answer and a name, each as it came.
  const db = new Database(join(dataDir, "hookline.db"));
  db.prepare("UPDATE attempts SET response_snippet = ?").run("ok\u0000then more");
  db.prepare("UPDATE applications SET name = ? WHERE id = ?").run("Acme\u0000Inc", app.id);
  db.close();

  const run = await copyToSchema(dataDir, schema);
  expect(run.failure).toBeNull();
  expect(run.out).toContain(
    "2 text values held NUL characters, which PostgreSQL cannot store: each NUL was copied as U+FFFD",
  );

  const pg = await startHooklineOnTheCopy(cleanup, dataDir, schema);
  const attempts = await pg.svix.messageAttempt.listByEndpoint(app.id, ep.id);
  expect(attempts.data.map((a) => a.response)).toEqual(["ok\uFFFDthen more"]);
  expect((await pg.svix.application.get("acme")).name).toBe("Acme\uFFFDInc");
}, 60_000);
