/**
 * The connection that LISTENs for other processes' signals, across a database outage (a loopback
 * proxy in front of the shared server is cut, then opened again): every failed try to reconnect
 * leads to one more try, not two, so once the database is back exactly one connection listens,
 * and the listener is told once that it may have missed signals.
 */
import { expect, it } from "vitest";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { TcpProxy } from "../support/tcp-proxy.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanup = useCleanup({ ignoreFailures: true });

it("listens on one connection again after an outage of several retries", async () => {
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
  let gaps = 0;
  const unsubscribe = await store.coordination!.subscribe(
    () => "wkr_listener",
    () => {},
    () => gaps++,
  );
  cleanup.push(unsubscribe);
  const listening = async () =>
    Number(
      (
        await adminQuery(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE query = $1 AND state = 'idle'",
          [`LISTEN hookline_${schema}`],
        )
      )[0]!.n,
    );
  expect(await listening()).toBe(1);

  // Away for about four retries, one a second.
  await proxy.cut();
  await sleep(4_500);
  await proxy.open();
  await expect.poll(() => gaps, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
  // Any other loop would have come back within its next second.
  await sleep(2_500);
  expect(await listening()).toBe(1);
  expect(gaps).toBe(1);
}, 30_000);
