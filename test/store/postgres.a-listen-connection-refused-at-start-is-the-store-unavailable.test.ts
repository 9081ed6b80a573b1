/**
 * A worker starts listening for the others' signals on a connection of its own, after the store
 * has answered. When PostgreSQL goes away in between (a restart, a failover), starting failed
 * with the driver's own error, which `hookline serve` printed as a stack trace
 * (`hookline: Error: Connection terminated unexpectedly …`) instead of the one line naming the
 * server that every other refusal at start gives: it is the store being unavailable.
 */
import { expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { TcpProxy } from "../support/tcp-proxy.js";

const cleanup = useCleanup({ ignoreFailures: true });

it("refuses to listen with StoreUnavailableError when the server went away after the store answered", async () => {
  const schema = freshSchemaName();
  const pgUrl = new URL(TEST_DATABASE_URL);
  const proxy = await TcpProxy.start({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  cleanup.push(
    () => dropSchema(schema),
    () => proxy.cut(),
  );
  pgUrl.port = String(proxy.port);
  const store = await PostgresStore.open({
    connectionString: pgUrl.toString(),
    schema,
    poolSize: 2,
  });
  cleanup.push(() => store.close());

  await proxy.cut();
  const listening = store.coordination!.subscribe(
    () => "wkr_listener",
    () => {},
    () => {},
  );
  await expect(listening).rejects.toBeInstanceOf(StoreUnavailableError);
  await expect(listening).rejects.toThrow(/^PostgreSQL store unavailable \(/);
}, 30_000);
