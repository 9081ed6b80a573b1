#!/usr/bin/env node
/** The `hookline` command. Only this entry point reads the environment. */
import { Command, Option } from "commander";
// The server, its log and its storage drivers load only when serve runs: `hookline --version`,
// `dlq` and the other commands took as long to start as a server (about 0.6 s, mostly loading).
import type { BoundAddress, Hookline } from "../app.js";
import { resolveConfig, unknownIn, type Config } from "../config.js";
import { HooklineError, StoreUnavailableError } from "../errors.js";
import { withoutPassword } from "../start-failure.js";
import { describeUnknown } from "../unknown-settings.js";
import { dlqCommand, type CliIo } from "./dlq.js";
import { keysCommand } from "./keys.js";
import { EXIT_CODE_OF, onStopSignals, type StopCleanly, type StopSignal } from "./signals.js";
import type { StdoutLog } from "./stdout-log.js";
import { storeCommand } from "./store.js";
import { drillCommand } from "./drill.js";
import { VERSION } from "../version.js";

/** HOOKLINE_URL and HOOKLINE_TOKEN; set but empty counts as unset, as every setting does. */
function connectionFromEnv(): { url: string | undefined; token: string | undefined } {
  const read = (name: string) => process.env[name]?.trim() || undefined;
  return { url: read("HOOKLINE_URL"), token: read("HOOKLINE_TOKEN") };
}

/** The outside world of the commands that call the API (dlq, drill). */
const io: CliIo = {
  out: process.stdout,
  now: () => Date.now(),
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  setExitCode: (code) => (process.exitCode = code),
  onInterrupt: (say) =>
    onStopSignals((signal) => {
      process.stderr.write(`hookline: ${say()}\n`);
      process.exit(EXIT_CODE_OF[signal]);
    }),
};

/** Lines to print after the error if the command fails (see serve). */
const afterFailure: string[] = [];

/** serve's log, once made: a failure's exit lets its last lines be written first. */
let serveLog: StdoutLog | null = null;

const program = new Command();
program.name("hookline").description("Self-hostable webhook delivery service").version(VERSION);

program
  .command("serve")
  .description("run the API and the delivery engine")
  .addOption(
    new Option(
      "--role <role>",
      "all (API and deliveries), api (the HTTP API only) or worker (deliveries only); api and worker need DATABASE_URL (default: HOOKLINE_ROLE or all)",
    ).choices(["all", "api", "worker"]),
  )
  .action(async (options: { role?: string }) => {
    const env = options.role ? { ...process.env, HOOKLINE_ROLE: options.role } : process.env;
    let config: Readonly<Config>;
    try {
      config = resolveConfig(env);
    } catch (err) {
      // Refused before the misspelt variables were worked out: they may be why.
      afterFailure.push(...unknownIn(env).map((u) => `WARNING: ${describeUnknown(u)}`));
      throw err;
    }
    // A misspelt setting is often why start-up fails (HOOKLINE_PROT leaves the default port, in
    // use): the warnings the banner would show come after the failure instead.
    afterFailure.push(...config.unknownSettings.map((u) => `WARNING: ${describeUnknown(u)}`));
    const [{ stdoutLog }, { createHookline, revokedAdminToken }] = await Promise.all([
      import("./stdout-log.js"),
      import("../app.js"),
    ]);
    serveLog = stdoutLog();
    const hookline = createHookline(config, { logDestination: serveLog.stream });
    // Before start: it delivers before the banner is printed, and a signal with no handler yet
    // (a service manager's stop, a restart loop) ended the process without finishing what was in
    // flight, without a word, and left a worker's place in the fleet to be reaped.
    const starting = hookline.start();
    const signals = onSignals(hookline, starting, serveLog);
    await starting;
    afterFailure.length = 0;
    // Stopped while starting: the stop speaks for itself, with no banner saying it runs.
    if (signals.stopping()) return;
    const { logger } = hookline;
    for (const u of config.unknownSettings) {
      logger.warn({ variable: u.name, suggestion: u.suggestion }, describeUnknown(u));
    }
    // Every role's banner: a worker's settings are as easily misspelt, its store as unencrypted.
    const revokedAt = hookline.adminTokenRevokedAt;
    const warning = [
      ...(config.encryptionKey
        ? []
        : ["secrets and payloads are stored unencrypted (set HOOKLINE_ENCRYPTION_KEY)"]),
      ...config.unknownSettings.map(describeUnknown),
      ...(revokedAt === null ? [] : [revokedAdminToken(config, revokedAt)]),
      ...hookline.exposedFiles,
    ].map((w) => `  WARNING:      ${w}`);
    if (config.role === "worker") {
      logger.info(
        {
          role: config.role,
          workerId: hookline.engine.fleet?.id,
          url: hookline.url,
          listening: listeningOn(hookline),
        },
        "hookline worker is running",
      );
      process.stdout.write(
        [
          "",
          ...warning,
          `  hookline worker ${hookline.engine.fleet?.id ?? ""} is delivering`,
          ...(hookline.listening?.everyInterface
            ? [`  Listening:    ${describeBound(hookline.listening)}`]
            : []),
          `  Health:       ${hookline.url}/api/v1/health/ready`,
          `  Metrics:      ${hookline.url}/metrics`,
          "",
        ].join("\n") + "\n",
      );
      return;
    }
    const database = config.databaseUrl
      ? { database: withoutPassword(config.databaseUrl), pgSchema: config.pgSchema }
      : {};
    logger.info(
      {
        url: hookline.url,
        listening: listeningOn(hookline),
        dataDir: config.dataDir,
        ...database,
        role: config.role,
      },
      "hookline is running",
    );
    if (!config.allowPrivateTargets) {
      logger.info(
        "endpoints on loopback or private addresses are refused (HOOKLINE_ALLOW_PRIVATE_TARGETS=1 allows them)",
      );
    }
    process.stdout.write(
      [
        "",
        ...warning,
        ...listeningLines(hookline),
        `  API:          ${hookline.url}/api/v1`,
        `  OpenAPI:      ${hookline.url}/api/v1/openapi.json`,
        // A token the operator set is theirs already, and stdout is often the log: only the one
        // hookline keeps in the data dir is shown, as the way to find it on a first start.
        `  Admin token:  ${config.adminToken ? "as set in HOOKLINE_ADMIN_TOKEN" : hookline.adminToken}${revokedAt === null ? "" : " (revoked)"}`,
        `  Data:         ${whereDataIs(config)}`,
        "",
      ].join("\n") + "\n",
    );
  });

/**
 * Where the API listens, then the URL to reach it when that is another: on every interface the
 * server's own URL is loopback's, which hid that the API was open to the network; with a public
 * URL, that URL is not where this process listens.
 */
function listeningLines(hookline: Hookline): string[] {
  const bound = hookline.listening;
  if (!bound || (!bound.everyInterface && !hookline.config.publicUrl)) {
    return [`  hookline is listening on ${hookline.url}`];
  }
  return [`  hookline is listening on ${describeBound(bound)}`, `  URL:          ${hookline.url}`];
}

/** Where the API listens, for the start log line (the URL alone hid every interface). */
function listeningOn(hookline: Hookline): string | undefined {
  return hookline.listening ? describeBound(hookline.listening) : undefined;
}

/** The address and port bound, as `0.0.0.0:8080 (every interface)` or `[::1]:8080`. */
function describeBound(bound: BoundAddress): string {
  const host = bound.address.includes(":") ? `[${bound.address}]` : bound.address;
  return `${host}:${bound.port}${bound.everyInterface ? " (every interface)" : ""}`;
}

/**
 * Where messages and deliveries are kept: the data dir, or on PostgreSQL (where the data dir holds
 * only a generated admin token) the database and schema, without the password.
 */
function whereDataIs(config: Readonly<Config>): string {
  if (!config.databaseUrl) return config.dataDir;
  return `PostgreSQL ${withoutPassword(config.databaseUrl)}, schema ${config.pgSchema}`;
}

/**
 * SIGTERM, SIGINT or SIGHUP (the terminal closed): stop taking work, finish what is in flight
 * (bounded), then exit. A second signal while stopping (Ctrl-C again) exits at once: what was in
 * flight is still claimed in the store and is sent again after restart. Not one within a second of
 * the first: under `npm start` one Ctrl-C arrives twice (from the terminal, and passed on by npm),
 * as does a service manager's SIGTERM sent to npm and to hookline alike.
 */
const REPEAT_IGNORED_MS = 1_000;

/**
 * Installed as start begins (`starting`). A signal while the store is still being opened ends the
 * process as an unhandled one does (nothing is taken yet, and waiting for another process's
 * migration has no bound); one once start takes work lets start end, then stops as above.
 */
function onSignals(
  hookline: Hookline,
  starting: Promise<void>,
  log: StdoutLog,
): { stopping(): boolean } {
  const { logger } = hookline;
  let stopping = false;
  let firstAt = 0;
  let exitingWith: number | null = null;
  const exit = (code: number) => {
    exitingWith = code;
    log.end(() => process.exit(code));
  };
  const shutdown = (signal: StopSignal) => {
    if (stopping && performance.now() - firstAt < REPEAT_IGNORED_MS) return;
    // Stopped, and waiting for its last log lines: nothing is left to give up.
    if (exitingWith !== null) process.exit(exitingWith);
    if (stopping) {
      logger.warn(
        { signal },
        "stopping at once: requests in flight are given up; their deliveries are sent again after restart",
      );
      exit(1);
      return;
    }
    if (!hookline.storeReady) {
      process.stderr.write(`hookline: stopped by ${signal} while opening the store\n`);
      forget();
      log.end(() => process.kill(process.pid, signal));
      return;
    }
    stopping = true;
    firstAt = performance.now();
    // An API-only process has no deliveries: its stop waits for the API's requests alone.
    const inFlight = hookline.config.role === "api" ? "API requests" : "deliveries";
    logger.info({ signal }, `stopping: finishing ${inFlight} in flight`);
    // A start that fails has stopped what it started, and is reported (exit 1) by the command.
    starting.then(
      () =>
        hookline.stop().then(
          () => {
            // Said, so a log that ends here tells a finished stop from one cut short (SIGKILL
            // after a service manager's stop timeout), which otherwise read the same.
            logger.info({ stoppingMs: Math.round(performance.now() - firstAt) }, "stopped");
            exit(0);
          },
          (err: unknown) => {
            // The work has stopped; only telling the database so failed. A stack trace there
            // read as a crash, with nothing said of what becomes of this process's deliveries.
            if (err instanceof StoreUnavailableError) {
              logger.warn({ reason: err.message }, stoppedUntold(hookline.config));
            } else logger.error({ err }, "stopping failed");
            exit(1);
          },
        ),
      () => undefined,
    );
  };
  const forget = onStopSignals(shutdown);
  return { stopping: () => stopping };
}

/**
 * For a command that stops cleanly when asked (`keys rotate`: at the end of its batch; `store
 * copy`: rolled back): the first SIGINT, SIGTERM or SIGHUP calls `stop`, and one more, a second or
 * more later, ends the process at once, saying what `atOnce` says of it. One within a second of the
 * first is the same Ctrl-C passed on by npx (see REPEAT_IGNORED_MS).
 */
const stopCleanly: StopCleanly = (stop, atOnce) => {
  let firstAt: number | null = null;
  return onStopSignals((signal) => {
    if (firstAt === null) {
      firstAt = performance.now();
      stop(signal);
    } else if (performance.now() - firstAt >= REPEAT_IGNORED_MS) {
      process.stderr.write(`hookline: ${atOnce(signal)}\n`);
      process.exit(1);
    }
  });
};

/** What a stop the database did not hear of leaves behind, for the operator reading the log. */
function stoppedUntold(config: Readonly<Config>): string {
  const after = config.databaseUrl
    ? "other processes take over its endpoints once they find it dead " +
      `(HOOKLINE_WORKER_DEAD_AFTER_MS, ${config.workerDeadAfterMs} ms), and `
    : "";
  return (
    "stopped, but the database is unavailable, so what this process held could not be handed " +
    `back: ${after}the deliveries it held are sent again once the database answers`
  );
}

/**
 * A reader that stops early (`hookline dlq list | head`) closes the pipe, and the next write fails
 * with EPIPE: the rest has nobody to read it, so the command ends there, quietly, keeping an exit
 * code already set (a failed replay's 2). Not for serve, whose log has its own stream.
 */
program.hook("preAction", (_program, action) => {
  if (action.name() === "serve") return;
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    process.exit();
  });
});

program.addCommand(dlqCommand(connectionFromEnv(), io));

program.addCommand(
  keysCommand(process.env, process.stdout, {
    err: process.stderr,
    now: () => Date.now(),
    onStop: stopCleanly,
    setExitCode: (code) => (process.exitCode = code),
  }),
);
program.addCommand(
  storeCommand(process.env, {
    out: process.stdout,
    err: process.stderr,
    now: () => Date.now(),
    signals: {
      onStop: stopCleanly,
      exit: (code) => process.exit(code),
      setExitCode: (code) => (process.exitCode = code),
    },
  }),
);
program.addCommand(drillCommand(connectionFromEnv(), io));

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof HooklineError) {
    process.stderr.write(`hookline: ${err.message}\n`);
  } else {
    process.stderr.write(
      `hookline: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
  }
  for (const line of afterFailure) process.stderr.write(`hookline: ${line}\n`);
  const exit = () => process.exit(1);
  if (serveLog) serveLog.end(exit);
  else exit();
});
