/**
 * `npm run demo`: hookline with its dashboard, a receiver that misbehaves in realistic ways, and a
 * gentle stream of events, so a newcomer sees retries, Retry-After, a circuit opening and closing,
 * and dead letters to replay, all within a few minutes. Everything runs on this machine.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createHookline } from "../src/app.js";
import { resolveConfig } from "../src/config.js";
import { dashboardDir } from "../src/ui/assets.js";
import { OUTAGE, PATHS, startDemoReceiver } from "./demo-receiver.js";

const EVENT_EVERY_MS = 2_000;
const TYPES = ["order.created", "order.paid", "invoice.sent"];

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "hookline-demo-"));
  try {
    await run(dataDir);
  } catch (err) {
    // A demo that could not start (its port taken, most often) leaves nothing behind.
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

async function run(dataDir: string): Promise<void> {
  // The demo receiver listens on loopback, which hookline refuses by default (SSRF protection);
  // the demo allows it explicitly, for this process only. Its data stays in the temporary data
  // dir, never in a PostgreSQL that DATABASE_URL names in the shell it runs from.
  const config = resolveConfig({
    HOOKLINE_PORT: "8080",
    HOOKLINE_LOG_LEVEL: "warn",
    ...process.env,
    HOOKLINE_DATA_DIR: dataDir,
    HOOKLINE_ALLOW_PRIVATE_TARGETS: "1",
    DATABASE_URL: "",
  });
  const startedAt = Date.now();
  const receiver = await startDemoReceiver(startedAt);
  // A quicker circuit breaker than production's, so it opens and closes within minutes; it still
  // opens on 5 failures in a row (the outage), but tolerates the flaky endpoint's scattered ones.
  const hookline = createHookline(config, {
    logger: pino({ level: config.logLevel }),
    breaker: {
      probeDelayMs: 30_000,
      maxProbeDelayMs: 60_000,
      halfOpenSuccesses: 2,
      windowFailures: 60,
    },
  });
  await hookline.start();
  const base = hookline.url;
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${hookline.adminToken}`,
        "content-type": "application/json",
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };

  // A short retry ladder (2 s … 20 s, two minutes at most) so failures reach the DLQ quickly.
  const app = await call<{ id: string }>("POST", "/api/v1/app", {
    name: "Acme Store",
    uid: "acme-store",
    deliveryPolicy: { retry: { delays: [2, 5, 10, 20], window: 120 } },
  });
  for (const [name, path] of Object.entries(PATHS)) {
    await call("POST", `/api/v1/app/${app.id}/endpoint`, {
      url: receiver.url(path),
      description: `Demo receiver: ${name}`,
    });
  }
  const portal = await call<{ url: string }>("POST", `/api/v1/auth/app-portal-access/${app.id}`, {
    expiry: 24 * 3600,
  });

  let n = 0;
  const stream = setInterval(() => {
    n++;
    const type = TYPES[n % TYPES.length]!;
    call("POST", `/api/v1/app/${app.id}/msg`, {
      eventType: type,
      payload: { type, data: { order: `ord_${1000 + n}`, amount: 10 + (n % 7) * 5 } },
    }).catch((err: Error) => console.error(`demo: sending event failed: ${err.message}`));
  }, EVENT_EVERY_MS);

  // Before it says "Press Ctrl-C": a Ctrl-C that came first would end it without its clean-up.
  const stop = async () => {
    clearInterval(stream);
    await hookline.stop();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());

  const s = (ms: number) => Math.round(ms / 1000);
  console.log(`
hookline demo is running (data in ${dataDir}, removed on exit).
HOOKLINE_ALLOW_PRIVATE_TARGETS=1 is set for this demo: its receiver is on 127.0.0.1.

  Operator console: ${base}/ui/
  Admin token:      ${hookline.adminToken}
  Customer portal:  ${portal.url}

What to watch (one event every ${EVENT_EVERY_MS / 1000} s to four endpoints of "Acme Store"):
  - ${PATHS.flaky}: some 500s (retried) and a few 400s (dead letters you can replay)
  - ${PATHS.limited}: a 429 with Retry-After: 8 now and then
  - ${PATHS.outage}: down from ${s(OUTAGE.fromMs)} s to ${s(OUTAGE.untilMs)} s: the circuit opens, probes, closes again
  - ${PATHS.slow}: answers after 1.5-4 s (see its latency chart)
Replay /flaky's dead letters from "Dead letters" in the console: one, a group, or by time window.
Press Ctrl-C to stop.${dashboardDir() ? "" : "\n\nThe dashboard is not built yet: run `npm run build` first."}
`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
