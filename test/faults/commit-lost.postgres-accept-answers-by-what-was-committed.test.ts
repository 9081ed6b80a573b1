/**
 * The connection breaks while a message's COMMIT is on its way (a loopback proxy in front of the
 * shared server loses it or its answer): the store cannot tell from that connection whether the
 * message was stored, so it asks another one, and answers accepted only if it was.
 */
import { afterEach, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { accept, seedApp } from "../store/behaviour/fixtures.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { TcpProxy } from "../support/tcp-proxy.js";

let store: PostgresStore | undefined;
let proxy: TcpProxy | undefined;
const schema = freshSchemaName();

afterEach(async () => {
  await store?.close();
  await proxy?.cut();
  await dropSchema(schema);
});

async function storeBehindProxy(): Promise<PostgresStore> {
  const url = new URL(TEST_DATABASE_URL);
  proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
  url.port = String(proxy.port);
  // A pool of one: the check must not wait for the connection it replaces.
  return PostgresStore.open({ connectionString: url.toString(), schema, poolSize: 1 });
}

const stored = async (id: string): Promise<number> =>
  (await adminQuery(`SELECT 1 FROM ${schema}.messages WHERE id = $1`, [id])).length;

it("a COMMIT that landed but whose answer was lost is answered as accepted, once", async () => {
  store = await storeBehindProxy();
  const { app } = await seedApp(store);
  proxy!.loseNextCommit("answer");
  const result = await accept(store, app.id, { eventId: "evt-1" });
  expect(result).toMatchObject({ created: true, deliveries: 1 });
  expect(await stored(result.message.id)).toBe(1);
  // The caller's retry (same eventId) finds it rather than making a second one.
  const again = await accept(store, app.id, { eventId: "evt-1" });
  expect(again).toMatchObject({ created: false });
  expect(again.message.id).toBe(result.message.id);
});

it("a COMMIT that never reached the server is still store-unavailable, with nothing stored", async () => {
  store = await storeBehindProxy();
  const { app } = await seedApp(store);
  proxy!.loseNextCommit("request");
  const id = "msg_lost_commit_request";
  await expect(accept(store, app.id, { id })).rejects.toBeInstanceOf(StoreUnavailableError);
  expect(await stored(id)).toBe(0);
});
