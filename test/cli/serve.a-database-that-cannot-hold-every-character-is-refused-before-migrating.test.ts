/**
 * A PostgreSQL database made in another encoding than UTF8 (LATIN1, WIN1252, EUC_JP: old
 * clusters' defaults) cannot hold every character hookline takes in. hookline started on one,
 * migrated it, and then answered 500 to an application or endpoint whose name, description, URL
 * or metadata it could not hold, recorded a receiver's answer in other scripts as "not recorded",
 * and, having stored a message sent with an Idempotency-Key, could not keep its answer, so the
 * client's retry was told the first request was still being processed. It now refuses such a
 * database at start, before it writes anything there, naming the encoding, DATABASE_URL and
 * what to do. SQL_ASCII stores the bytes it is sent as they are: everything round-trips, so it
 * is let be. Runs the built command: `npm run build` first.
 */
import { expect, it } from "vitest";
import { spawnCli } from "../support/built-cli.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { aDatabase, DROPS_A_DATABASE, queryIn } from "../support/postgres.js";
import { runHookline, TEST_TOKEN } from "../support/process.js";
import { Receiver } from "../support/receiver.js";

const cleanup = useCleanup(DROPS_A_DATABASE);

/** Schemas in the database at `url` other than PostgreSQL's own and `public`. */
async function schemasIn(url: string): Promise<unknown[]> {
  const rows = await queryIn(
    url,
    `SELECT nspname FROM pg_namespace
     WHERE nspname NOT LIKE 'pg\\_%' AND nspname NOT IN ('public', 'information_schema')`,
  );
  return rows.map((r) => r.nspname);
}

it.each(["LATIN1", "WIN1252", "EUC_JP"])(
  "refuses a database in %s at start, saying what to do, and writes nothing there",
  async (encoding) => {
    const url = await aDatabase(cleanup, `hl_test_${encoding.toLowerCase()}`, encoding);
    const database = new URL(url).pathname.slice(1);
    const run = spawnCli(["serve"], {
      DATABASE_URL: url,
      HOOKLINE_PG_SCHEMA: "hooks",
      HOOKLINE_DATA_DIR: tempDir(cleanup, "hookline-encoding-"),
      HOOKLINE_ADMIN_TOKEN: TEST_TOKEN,
      HOOKLINE_PORT: "0",
      HOOKLINE_LOG_LEVEL: "silent",
    });
    cleanup.push(async () => {
      run.child.kill("SIGKILL");
      await run.exited;
    });
    // Ends on its own, or is found listening: either settles the wait.
    const listening = new Promise<string>((resolve) =>
      run.child.stdout!.on("data", () => /listening on/.test(run.out()) && resolve("listening")),
    );
    expect(await Promise.race([run.exited, listening]), run.out() + run.err()).toBe(1);
    expect(run.err()).toBe(
      `hookline: the PostgreSQL database ${database} (DATABASE_URL) is in the encoding ${encoding}, which cannot hold every character hookline accepts: names, descriptions, URLs, metadata and receivers' answers in any script or with emoji would be refused as they came. Make a database in UTF8 (CREATE DATABASE … ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0) and point DATABASE_URL at it; hookline's data already in this one moves over with pg_dump --schema=hooks, restored into the new one with psql (PostgreSQL converts it), a SQLite store's with hookline store copy. hookline wrote nothing there\n`,
    );
    expect(await schemasIn(url)).toEqual([]);
  },
  60_000,
);

it("runs on a SQL_ASCII database, giving back every character as it was sent", async () => {
  const url = await aDatabase(cleanup, "hl_test_sql_ascii", "SQL_ASCII");
  const receiver = await Receiver.start(() => ({
    status: 500,
    headers: { "content-type": "text/plain; charset=utf-8" },
    body: "エラー: 日本 🎉 café",
  }));
  cleanup.push(() => receiver.close());
  const hookline = await runHookline(cleanup, tempDir(cleanup, "hookline-encoding-"), {
    DATABASE_URL: url,
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${hookline.url}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TEST_TOKEN}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return (await res.json()) as Record<string, unknown>;
  };

  const text = "日本 🎉 café";
  await api("POST", "/app", { uid: "acme", name: text, metadata: { note: text } });
  await api("POST", "/app/acme/endpoint", {
    uid: "hook",
    url: receiver.url("/日本"),
    description: text,
    metadata: { note: text },
  });
  const message = await api("POST", "/app/acme/msg", {
    eventType: "order.paid",
    payload: { text },
  });
  await receiver.waitFor(1);
  expect(receiver.requests[0]!.path).toBe("/%E6%97%A5%E6%9C%AC");
  expect(JSON.parse(receiver.requests[0]!.body.toString())).toEqual({ text });

  const app = await api("GET", "/app/acme");
  expect([app.name, app.metadata]).toEqual([text, { note: text }]);
  const endpoint = await api("GET", "/app/acme/endpoint/hook");
  expect([endpoint.url, endpoint.description, endpoint.metadata]).toEqual([
    receiver.url("/日本"),
    text,
    { note: text },
  ]);
  expect((await api("GET", `/app/acme/msg/${String(message.id)}`)).payload).toEqual({ text });
  // The attempt is recorded once the receiver has answered: waited for, not slept on.
  let attempts: { response: unknown }[] = [];
  for (;;) {
    attempts = (await api("GET", "/app/acme/attempt/endpoint/hook")).data as typeof attempts;
    if (attempts.length > 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(attempts[0]!.response).toBe("エラー: 日本 🎉 café");
}, 60_000);
