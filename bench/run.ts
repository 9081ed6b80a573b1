/**
 * `npm run bench`: builds hookline, starts the receiver in its own process, measures the ceiling,
 * runs the scenarios of issue #8 against hookline child processes, prints the table and writes
 * bench/results/latest.json (plus a dated copy). See docs/benchmarks.md.
 *
 *   npm run bench                          everything (about 5–10 minutes)
 *   npm run bench -- --quick               smaller sizes, a smoke run (about a minute)
 *   npm run bench -- --only drain,storm    some scenarios (the ceiling runs when a ratio needs it)
 *   npm run bench -- --profile             also write hookline CPU profiles (bench/results/profiles)
 *   npm run bench -- --no-build            use dist/ as it is
 *   npm run bench -- --hookline <dir>      benchmark the hookline checkout in <dir> (built there)
 *   npm run bench -- --no-wait             do not wait for other processes to go quiet first
 *                                          (a full run waits up to a minute before each step)
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import {
  HooklineProcess,
  ROOT,
  currentHooklineDir,
  removeLeftovers,
  useHooklineDir,
} from "./lib/hookline.js";
import { Receiver } from "./lib/receiver-client.js";
import { NoiseMeter } from "./lib/noise.js";
import { machine, textTable, writeResults } from "./lib/report.js";
import {
  applyCeiling,
  ceilingsBefore,
  failInvalid,
  type BenchContext,
  type Figure,
  type Scenario,
} from "./lib/scenario.js";
import { parseArgs, usage } from "./lib/args.js";
import { summarizeProfiles } from "./profile-summary.js";
import { median } from "./lib/stats.js";
import { accept } from "./scenarios/accept.js";
import { backlog } from "./scenarios/backlog.js";
import { CEILING_CONCURRENCY, measureCeiling, type CeilingResult } from "./scenarios/ceiling.js";
import { drain } from "./scenarios/drain.js";
import { endpoints } from "./scenarios/endpoints.js";
import { isolation } from "./scenarios/isolation.js";
import { lag } from "./scenarios/lag.js";
import { storm } from "./scenarios/storm.js";
import { together } from "./scenarios/together.js";

const SCENARIOS: Scenario[] = [drain, together, accept, lag, backlog, endpoints, isolation, storm];

const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const names = ["ceiling", ...SCENARIOS.map((sc) => sc.name)];
  const options = parseArgs(process.argv.slice(2), names);
  if (options === "help") {
    process.stdout.write(`${usage(names)}\n`);
    process.exit(0);
  }
  const startedAt = new Date().toISOString();
  const resultsDir = join(ROOT, "bench/results");
  if (options.hookline) useHooklineDir(options.hookline);
  if (options.build) {
    log(`building hookline in ${currentHooklineDir()} (npm run build)…`);
    const built = spawnSync("npm", ["run", "build", "--silent"], {
      cwd: currentHooklineDir(),
      stdio: "inherit",
    });
    if (built.status !== 0) throw new Error("npm run build failed");
  }
  const selected = SCENARIOS.filter((s) => options.only === null || options.only.includes(s.name));
  const wantCeiling =
    options.only === null ||
    options.only.includes("ceiling") ||
    selected.some((s) => s.needsCeiling);

  // Interrupted (Ctrl-C, or a signal to the bench alone), the scenarios' clean-up never runs:
  // their hookline processes and data dirs go now. The receiver and the relay end with their IPC
  // channel, the ceiling client after its few seconds of measuring.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`bench: ${signal}: stopping hookline and removing the run's data dirs`);
      removeLeftovers();
      process.exit(128 + constants.signals[signal]);
    });
  }
  const receiver = await Receiver.start();
  const noise = new NoiseMeter();
  // Cores other processes used over a stretch of the run, as "0.12"; shown beside the figures.
  const otherCores = async <T>(work: () => Promise<T>): Promise<{ out: T; cores: number }> => {
    const cpu0 = noise.foreignCpuSeconds();
    const t0 = performance.now();
    const out = await work();
    const cores = (noise.foreignCpuSeconds() - cpu0) / ((performance.now() - t0) / 1000);
    return { out, cores };
  };
  // The ceiling is measured at the start, after each scenario that is compared with it (and just
  // before one when others ran since the last), and between the parts of a scenario that asks
  // (ctx.ceiling); each ratio uses the mean of the two measured beside its work, and the spread
  // shows the noise.
  const ceilings: (CeilingResult & { when: string; otherCores: number })[] = [];
  const ceilingRate = () => median(ceilings.map((c) => c.rate));
  const profileDir = options.profile
    ? join(resultsDir, "profiles", startedAt.replace(/[:.]/g, "-"))
    : null;
  const ctx: BenchContext = {
    quick: options.quick,
    receiver,
    profileDir,
    log,
    // Within a scenario the receiver keeps its groups: the scenario's parts may still read them.
    ceiling: async (when) => {
      await runCeiling(when, { reset: false });
      return ceilings.length - 1;
    },
    lastCeiling: () => ceilings.length - 1,
    usingDatabase: (work) => noise.withDatabaseOurs(work),
  };
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};
  const noiseBy: Record<string, number> = {};
  // Other work on this machine (a test run, a type-check) moves every figure: before each
  // measurement, wait (at most a minute) for it to go quiet.
  const settle = async () => {
    if (!(options.wait ?? !options.quick)) return;
    const load = await noise.waitForQuiet(0.1, 60_000);
    if (load >= 0.1) log(`    other processes still use ${load.toFixed(2)} cores; going on`);
  };
  const runCeiling = async (when: string, { reset } = { reset: true }) => {
    await settle();
    log(`[1] ceiling (${when}): signed POSTs, ${CEILING_CONCURRENCY} in flight, no storage…`);
    const { out: c, cores } = await otherCores(() => measureCeiling(ctx, ceilings.length === 0));
    ceilings.push({ ...c, when, otherCores: cores });
    log(`    ${Math.round(c.rate)} requests/s (other processes: ${cores.toFixed(2)} cores)`);
    if (reset) await receiver.reset();
  };

  try {
    if (wantCeiling) await runCeiling("start");
    const measureBefore = ceilingsBefore(selected, wantCeiling);
    for (const [i, s] of selected.entries()) {
      if (measureBefore[i]) await runCeiling(`before ${s.name}`);
      await settle();
      log(`[${SCENARIOS.indexOf(s) + 2}] ${s.title} (${s.name})…`);
      const t0 = performance.now();
      const before = ceilings.length - 1;
      let scenarioFigures: Figure[];
      let withRatios: ((figures: Figure[]) => void) | undefined;
      try {
        const { out, cores } = await otherCores(() => s.run(ctx));
        scenarioFigures = out.figures;
        withRatios = out.withRatios;
        noiseBy[s.name] = cores;
        details[s.name] = {
          durationMs: Math.round(performance.now() - t0),
          otherCores: cores,
          ...(out.details as object),
        };
      } catch (err) {
        log(`    failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        scenarioFigures = [
          {
            scenario: `${SCENARIOS.indexOf(s) + 2} ${s.name}`,
            figure: "(scenario failed)",
            value: null,
            unit: "",
            pass: false,
            note: String(err instanceof Error ? err.message : err)
              .split("\n")[0]!
              .slice(0, 120),
          },
        ];
      }
      // A scenario that failed half-way may have left a hookline running.
      await HooklineProcess.killAll();
      await receiver.reset();
      log(`    done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      if (s.needsCeiling) {
        // Side by side: each ratio is to the ceilings measured just before and after its work,
        // the scenario's own unless it measured some between its parts.
        await runCeiling(`after ${s.name}`);
        applyCeiling(
          scenarioFigures,
          ceilings.map((c) => c.rate),
          before,
        );
      }
      withRatios?.(scenarioFigures);
      failInvalid(scenarioFigures);
      figures.push(...scenarioFigures);
    }
  } finally {
    noise.stop();
    await HooklineProcess.killAll();
    await receiver.stop();
  }

  const ceilingFigures: Figure[] = ceilings.map((c) => ({
    scenario: "1 ceiling",
    figure: `undici, signed, ${CEILING_CONCURRENCY} in flight (${c.when})`,
    value: c.rate,
    unit: "requests/s",
    note: `${c.errors ? `${c.errors} errors; ` : ""}client CPU ${c.cpuUsPerRequest === null ? "n/a" : `${Math.round(c.cpuUsPerRequest)} µs/request`}; other processes ${c.otherCores.toFixed(2)} cores${c.machineIdle ? `; ${c.machineIdle}` : ""}`,
  }));
  if (ceilings.length > 1) {
    const rates = ceilings.map((c) => c.rate);
    const reference = ceilingRate()!;
    ceilingFigures.push({
      scenario: "1 ceiling",
      figure: `median of ${ceilings.length} (each ratio uses the two measured beside it)`,
      value: reference,
      unit: "requests/s",
      note: `range ${Math.round(Math.min(...rates))}–${Math.round(Math.max(...rates))} (±${((50 * (Math.max(...rates) - Math.min(...rates))) / reference).toFixed(0)} %)`,
    });
  }
  const all = [...ceilingFigures, ...figures];
  process.stdout.write(`\n${textTable(all)}\n\n`);
  process.stdout.write(
    `other processes on the machine, mean cores while each scenario ran: ${Object.entries(noiseBy)
      .map(([name, cores]) => `${name} ${cores.toFixed(2)}`)
      .join(", ")}\n\n`,
  );
  const results = {
    startedAt,
    finishedAt: new Date().toISOString(),
    quick: options.quick,
    only: options.only,
    machine: machine(),
    hookline: hooklineVersion(),
    ceilings,
    otherCores: noiseBy,
    figures: all,
    details,
  };
  const files = writeResults(resultsDir, results);
  log(`results: ${files.join(", ")}`);
  if (profileDir) {
    if (existsSync(profileDir)) log(`CPU profiles: ${profileDir}`);
    process.stdout.write(summarizeProfiles(profileDir));
  }
}

main().catch((err: unknown) => {
  log(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});

/** Which hookline was measured: the checkout, its git commit, and whether src/ had local changes. */
function hooklineVersion(): { dir: string; commit: string | null; dirty: boolean | null } {
  const dir = currentHooklineDir();
  const git = (args: string[]) => spawnSync("git", args, { cwd: dir, encoding: "utf8" });
  const head = git(["rev-parse", "HEAD"]);
  if (head.status !== 0) return { dir, commit: null, dirty: null };
  const status = git(["status", "--porcelain", "--", "src"]);
  return { dir, commit: head.stdout.trim(), dirty: status.stdout.trim().length > 0 };
}
