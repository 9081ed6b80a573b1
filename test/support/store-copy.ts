/**
 * For the tests of `hookline store copy`: running the command in this process, and reading back
 * everything a hookline holds through its API, to compare a SQLite hookline with its copy.
 */
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { storeCommand } from "../../src/cli/store.js";
import { FieldCipher } from "../../src/security/cipher.js";
import { COPIED } from "../../src/store/copy/plan.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { tempDir, type Cleanup } from "./cleanup.js";
import { startHookline, type TestHookline } from "./hookline.js";
import { adminQuery, TEST_DATABASE_URL } from "./postgres.js";
import { runCli } from "./built-cli.js";

/**
 * A data dir whose store holds one application, one endpoint and `messages` messages (each with
 * its delivery), sealed with `key` if given; removed by `cleanup`. Returns the dir and the ids of
 * the messages, oldest first.
 */
export async function aSqliteDataDir(
  cleanup: Cleanup,
  options: { messages?: number; key?: Buffer } = {},
): Promise<{ dir: string; messageIds: string[] }> {
  const dir = tempDir(cleanup, "hookline-copy-");
  const store = new SqliteStore({
    path: join(dir, "hookline.db"),
    synchronous: "normal",
    cipher: new FieldCipher(options.key ?? null),
  });
  const app = await store.createApplication(anApplication());
  await store.createEndpoint(anEndpoint(app.id));
  const messageIds: string[] = [];
  for (let i = 0; i < (options.messages ?? 1); i++) {
    messageIds.push((await accept(store, app.id)).message.id);
  }
  await store.close();
  return { dir, messageIds };
}

/** What the command printed, and how it ended. */
export interface CopyRun {
  out: string;
  err: string;
  failure: Error | null;
}

/** `hookline store copy <args>` with `env` as its environment. */
export async function runStoreCopy(
  env: Record<string, string>,
  args: string[],
  now: () => number = () => Date.now(),
): Promise<CopyRun> {
  const run: CopyRun = { out: "", err: "", failure: null };
  const out = new PassThrough();
  const err = new PassThrough();
  out.on("data", (c: Buffer) => (run.out += c.toString()));
  err.on("data", (c: Buffer) => (run.err += c.toString()));
  try {
    await storeCommand(env, { out, err, now }).parseAsync(["copy", ...args], { from: "user" });
  } catch (e) {
    run.failure = e as Error;
  }
  return run;
}

/** `hookline store copy --to <the test database> --schema <schema>` of the data dir `dir`. */
export function copyToSchema(dir: string, schema: string): Promise<CopyRun> {
  return runStoreCopy({ HOOKLINE_DATA_DIR: dir }, ["--to", TEST_DATABASE_URL, "--schema", schema]);
}

/**
 * A hookline on the copy: the data dir `dataDir` with its store in the PostgreSQL schema `schema`,
 * and `env` besides; stopped by `cleanup`, which leaves the data dir.
 */
export async function startHooklineOnTheCopy(
  cleanup: Cleanup,
  dataDir: string,
  schema: string,
  env: Record<string, string> = {},
): Promise<TestHookline> {
  const h = await startHookline({
    dataDir,
    env: { ...env, DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema },
  });
  cleanup.push(() => h.stop(true));
  return h;
}

/** How `hookline store copy` ran as a process of its own: its exit code and what it printed. */
export interface CopyProcessRun {
  code: number | string;
  out: string;
  err: string;
}

/**
 * `hookline store copy <args>` as a process of its own (the built command), with `env` as its
 * hookline settings: none of the test run's own HOOKLINE_* variables or DATABASE_URL.
 */
export function spawnStoreCopy(
  env: Record<string, string>,
  args: string[],
): Promise<CopyProcessRun> {
  return runCli(["store", "copy", ...args], env);
}

/** Every page of a list read `limit` at a time: each page's ids and the iterator it gave. */
export async function pagesOf(
  h: TestHookline,
  path: string,
  limit = 2,
): Promise<{ ids: string[]; iterator: string | null; done: boolean }[]> {
  const pages = [];
  let iterator: string | null = null;
  for (let i = 0; i < 100; i++) {
    const sep = path.includes("?") ? "&" : "?";
    const at: string = iterator ? `&iterator=${encodeURIComponent(iterator)}` : "";
    const res = await h.api<{ data: { id: string }[]; iterator: string | null; done: boolean }>(
      "GET",
      `${path}${sep}limit=${limit}${at}`,
    );
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    pages.push({
      ids: res.body.data.map((d) => d.id),
      iterator: res.body.iterator,
      done: res.body.done,
    });
    if (res.body.done) break;
    iterator = res.body.iterator;
  }
  return pages;
}

/**
 * What a hookline shows of its applications and all under them, of event types, dead letters,
 * replay jobs, tokens and operational webhook endpoints: the Svix client's reads where the API is
 * Svix's, the API's JSON for hookline's own, and the pages of each list.
 */
export async function readEverything(h: TestHookline): Promise<Record<string, unknown>> {
  const seen: Record<string, unknown> = {};
  const get = async (path: string) => {
    const res = await h.api("GET", path);
    seen[path] = { status: res.status, body: res.body };
  };
  const apps = await h.svix.application.list({ limit: 250 });
  seen.apps = apps;
  seen.appPages = await pagesOf(h, "/api/v1/app", 1);
  for (const app of apps.data) {
    seen[`app ${app.id}`] = await h.svix.application.get(app.id);
    const endpoints = await h.svix.endpoint.list(app.id, { limit: 250 });
    seen[`endpoints ${app.id}`] = endpoints;
    for (const ep of endpoints.data) {
      seen[`endpoint ${ep.id}`] = await h.svix.endpoint.get(app.id, ep.id);
      seen[`secret ${ep.id}`] = await h.svix.endpoint.getSecret(app.id, ep.id);
      seen[`headers ${ep.id}`] = await h.svix.endpoint.getHeaders(app.id, ep.id);
      seen[`attempts ${ep.id}`] = await h.svix.messageAttempt.listByEndpoint(app.id, ep.id);
      await get(`/api/v1/app/${app.id}/endpoint/${ep.id}/circuit`);
      await get(`/api/v1/app/${app.id}/endpoint/${ep.id}/retry-schedule`);
    }
    const messages = await h.svix.message.list(app.id, { limit: 250, withContent: true });
    seen[`messages ${app.id}`] = messages;
    seen[`messagePages ${app.id}`] = await pagesOf(h, `/api/v1/app/${app.id}/msg`);
    for (const m of messages.data) {
      seen[`message ${m.id}`] = await h.svix.message.get(app.id, m.id);
      seen[`attempts of ${m.id}`] = await h.svix.messageAttempt.listByMsg(app.id, m.id);
    }
  }
  seen.eventTypes = await h.svix.eventType.list({ includeArchived: true, limit: 250 });
  seen.operationalEndpoints = await h.svix.operationalWebhookEndpoint.list({ limit: 250 });
  await get("/api/v1/dlq?limit=250");
  seen.dlqPages = await pagesOf(h, "/api/v1/dlq");
  await get("/api/v1/dlq/replay?limit=250");
  await get("/api/v1/tokens?limit=250");
  seen.tokenPages = await pagesOf(h, "/api/v1/tokens");
  return seen;
}

/** The copied tables of `schema` that hold rows, and how many (a copy rolled back: none). */
export async function rowsIn(schema: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const t of [...COPIED.map((c) => c.name), "dead_letter_depth"]) {
    const [row] = await adminQuery(`SELECT count(*)::int AS n FROM ${schema}.${t}`);
    if (row!.n) counts[t] = Number(row!.n);
  }
  return counts;
}
