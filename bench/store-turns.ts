/**
 * The SQLite store alone, in the pattern of scenario 3 (accept and deliver together): each turn of
 * the event loop accepts a batch of messages, records the outcomes of the deliveries claimed the
 * turn before and claims as many again, as the engine does while clients post. It reports the
 * process's CPU per message and how many bytes the process wrote (the WAL and, through the
 * checkpoint thread, the database file), with no HTTP and no other process on the cores, so that
 * two builds can be compared more steadily than the whole scenario allows. Not part of
 * `npm run bench`.
 *
 *   node --import tsx bench/store-turns.ts [--hookline <dir>] [--turns N] [--rounds N]
 *
 * (each value after a space or "=").
 *
 * `--hookline` measures another checkout's build (its `dist/`); the default is this one's.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ClaimedDelivery, DeliveryOutcome, Store } from "../src/store/port.js";
import { optionValue } from "./lib/args.js";
import { benchApplication, benchEndpoint } from "./lib/catalogue-rows.js";

const ACCEPTS_PER_TURN = 32;
const CLAIMS_PER_TURN = 18;

function option(name: string, fallback: string): string {
  return optionValue(process.argv.slice(2), name) ?? fallback;
}

const dir = resolve(option("--hookline", "."));
const turns = count("--turns", "1500");
const rounds = count("--rounds", "3");

function count(name: string, fallback: string): number {
  const n = Number(option(name, fallback));
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} takes a whole number from 1`);
  return n;
}

interface Built {
  SqliteStore: new (o: object) => Store;
  DEFAULT_CHECKPOINTS: object;
  newId: (prefix: string, now?: number) => string;
}

async function load(): Promise<Built> {
  const dist = (p: string) => import(pathToFileURL(join(dir, "dist", p)).href);
  const [store, checkpointer, ids] = await Promise.all([
    dist("store/sqlite/store.js"),
    dist("store/sqlite/checkpointer.js"),
    dist("ids.js"),
  ]);
  return {
    SqliteStore: store.SqliteStore,
    DEFAULT_CHECKPOINTS: checkpointer.DEFAULT_CHECKPOINTS,
    newId: ids.newId,
  };
}

function writtenBytes(): number {
  const io = readFileSync("/proc/self/io", "utf8");
  return Number(/wchar: (\d+)/.exec(io)?.[1] ?? 0);
}

function outcomeOf(d: ClaimedDelivery, at: number, newId: Built["newId"]): DeliveryOutcome {
  return {
    deliveryId: d.id,
    endpointId: d.endpointId,
    messageId: d.messageId,
    appId: d.appId,
    at,
    attempt: {
      id: newId("atmpt", at),
      at,
      trigger: "first",
      url: "http://127.0.0.1:9/hook",
      status: 200,
      error: null,
      errorDetail: null,
      durationMs: 1,
      responseSnippet: "ok",
      outcome: "success",
    },
    signatureHeaders: {},
    next: { kind: "succeeded" },
    retryAfter: null,
    disableEndpoint: null,
    claimedBy: d.claimedBy,
  };
}

async function round(built: Built): Promise<{ usPerMessage: number; bytesPerMessage: number }> {
  const data = mkdtempSync(join(tmpdir(), "hookline-store-turns-"));
  const store = new built.SqliteStore({
    path: join(data, "hookline.db"),
    synchronous: "normal",
    checkpoints: built.DEFAULT_CHECKPOINTS,
  });
  try {
    const now = Date.now();
    const app = await store.createApplication(
      benchApplication(built.newId("app", now), "turns", now),
    );
    const ep = await store.createEndpoint(
      benchEndpoint(built.newId("ep", now), app.id, "http://127.0.0.1:9/hook", now),
    );
    const payload = Buffer.from(JSON.stringify({ type: "invoice.paid", amount: 1200 }));
    let held: ClaimedDelivery[] = [];
    const cpu0 = process.cpuUsage();
    const bytes0 = writtenBytes();
    for (let t = 0; t < turns; t++) {
      const at = Date.now();
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < ACCEPTS_PER_TURN; i++) {
        work.push(
          store.acceptMessage({
            id: built.newId("msg", at),
            appId: app.id,
            eventType: "invoice.paid",
            eventId: null,
            channels: null,
            tags: null,
            payload,
            now: at,
            dueAt: at,
            deliverAt: null,
            newDeliveryId: () => built.newId("dlv", at),
          }),
        );
      }
      if (held.length)
        work.push(store.recordAttempts(held.map((d) => outcomeOf(d, at, built.newId))));
      const claim = store.claimDue({
        now: at,
        limit: CLAIMS_PER_TURN,
        excludeEndpoints: [],
        leaseUntil: at + 60_000,
        endpointId: ep.id,
      });
      await Promise.all(work);
      held = await claim;
    }
    const cpu = process.cpuUsage(cpu0);
    const messages = turns * ACCEPTS_PER_TURN;
    return {
      usPerMessage: (cpu.user + cpu.system) / messages,
      bytesPerMessage: (writtenBytes() - bytes0) / messages,
    };
  } finally {
    await store.close();
    rmSync(data, { recursive: true, force: true });
  }
}

const built = await load();
process.stdout.write(
  `store alone, ${turns} turns of ${ACCEPTS_PER_TURN} accepts + ${CLAIMS_PER_TURN} outcomes + a claim of ${CLAIMS_PER_TURN}; ${dir}\n`,
);
for (let r = 0; r < rounds; r++) {
  const { usPerMessage, bytesPerMessage } = await round(built);
  process.stdout.write(
    `  round ${r + 1}: ${usPerMessage.toFixed(1)} µs of CPU per message, ${Math.round(bytesPerMessage)} bytes written per message\n`,
  );
}
