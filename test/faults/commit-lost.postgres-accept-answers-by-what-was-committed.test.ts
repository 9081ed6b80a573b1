/**
 * A message's COMMIT, or its answer, never comes back: the connection breaks on its way (a loopback
 * proxy in front of the shared server cuts it), or goes silent both ways (the proxy holds it and
 * keeps the connection open, as when the server's host vanishes at that moment, until the query
 * timeout ends the wait). Either way the store cannot tell from that connection whether the message
 * was stored: it gives the connection up, asks another one, and answers accepted only if it was
 * committed, store-unavailable (nothing stored) if not.
 */
import { afterEach, describe, expect, it } from "vitest";
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
  // A pool of one: the check must not wait for the connection it gave up.
  return PostgresStore.open({
    connectionString: url.toString(),
    schema,
    poolSize: 1,
    queryTimeoutMs: 1_000,
  });
}

const stored = async (id: string): Promise<number> =>
  (await adminQuery(`SELECT 1 FROM ${schema}.messages WHERE id = $1`, [id])).length;

const WAYS = [
  { way: "cut", trap: (which: "answer" | "request") => proxy!.loseNextCommit(which) },
  { way: "silent", trap: (which: "answer" | "request") => proxy!.holdNextCommit(which) },
];

describe.each(WAYS)("the connection $way", ({ way, trap }) => {
  it("a COMMIT that landed but whose answer never came is answered as accepted, once", async () => {
    store = await storeBehindProxy();
    const { app } = await seedApp(store);
    trap("answer");
    const result = await accept(store, app.id, { eventId: "evt-1" });
    expect(result).toMatchObject({ created: true, deliveries: 1 });
    expect(await stored(result.message.id)).toBe(1);
    // The caller's retry (same eventId), on another connection, finds it rather than making a
    // second one.
    const again = await accept(store, app.id, { eventId: "evt-1" });
    expect(again).toMatchObject({ created: false });
    expect(again.message.id).toBe(result.message.id);
  });

  it("a COMMIT that never reached the server is store-unavailable, with nothing stored", async () => {
    store = await storeBehindProxy();
    const { app } = await seedApp(store);
    trap("request");
    const id = `msg_${way}_commit_request`;
    await expect(accept(store, app.id, { id })).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await stored(id)).toBe(0);
    // Even once a held COMMIT is let through: its transaction was ended before it could land.
    proxy!.forward();
    const later = await accept(store, app.id, { eventId: "evt-2" });
    expect(later).toMatchObject({ created: true });
    expect(await stored(id)).toBe(0);
  });
});
