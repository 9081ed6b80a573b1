/**
 * hookline under test: the built CLI (`node dist/cli/main.js serve`) as a child process with a
 * fresh data dir, plus the few admin API calls the scenarios need.
 */
import { spawn, type ChildProcess } from "node:child_process";
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { cpuOf } from "./process-table.js";

/** The repository the bench lives in. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let hooklineDir = ROOT;

/** Runs hookline from another checkout (its dist/ is used), e.g. to compare two versions. */
export function useHooklineDir(dir: string): void {
  hooklineDir = dir;
}

/** The checkout whose dist/cli/main.js is benchmarked. */
export function currentHooklineDir(): string {
  return hooklineDir;
}
export const ADMIN_TOKEN = "hl_bench_token_0123456789abcdef";

export interface StartOptions {
  dataDir: string;
  /** Write a V8 CPU profile into this directory when the process exits. */
  profileDir?: string | null;
  env?: Record<string, string>;
  /** `hookline serve --role`; a worker serves only its health checks and metrics, no API. */
  role?: "all" | "api" | "worker";
}

// Data dirs made and not yet removed, for an interrupted run to remove (`removeLeftovers`): a
// full run's backlogs are a gigabyte and more, and the scenarios' own clean-up never runs then.
const madeDirs = new Set<string>();

/** A fresh, empty data dir under the system temp dir; `removeDataDir` deletes it. */
export function freshDataDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `hookline-bench-${label}-`));
  madeDirs.add(dir);
  return dir;
}

/**
 * Flushes a data dir's files to the disk. The bench writes and copies backlogs of hundreds of
 * megabytes just before starting hookline on them; left dirty in the page cache, they would be
 * written back during the measurement, and the first fsync of hookline's checkpoints would carry
 * every dirty page of the file: hookline would pay for the bench's writes.
 */
export function syncDataDir(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const fd = openSync(join(dir, entry.name), "r+");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  madeDirs.delete(dir);
}

/**
 * For a run interrupted mid-scenario: kills (-9) every hookline this bench spawned, started or
 * still starting, and removes every data dir it made and has not removed. Synchronous, so that
 * it completes in a signal handler before the bench exits.
 */
export function removeLeftovers(): void {
  for (const child of spawned) child.kill("SIGKILL");
  // Retried: a process just killed may still be finishing a write into its dir.
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  madeDirs.clear();
}

// Every hookline child still running, from its spawn on (`HooklineProcess.running` holds those
// that came up).
const spawned = new Set<ChildProcess>();

/** One running hookline process. */
export class HooklineProcess {
  private static readonly running = new Set<HooklineProcess>();
  readonly api: AdminApi;
  private output = "";

  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
    readonly dataDir: string,
    readonly exited: Promise<number | string>,
    readonly spawnedAt: number,
    readonly readyAt: number,
  ) {
    this.api = new AdminApi(url);
  }

  /** Spawns hookline and resolves once it prints the URL it listens on. */
  static async start(options: StartOptions): Promise<HooklineProcess> {
    const args: string[] = [];
    if (options.profileDir) {
      mkdirSync(options.profileDir, { recursive: true });
      args.push("--cpu-prof", `--cpu-prof-dir=${options.profileDir}`);
    }
    args.push(join(hooklineDir, "dist/cli/main.js"), "serve");
    if (options.role) args.push("--role", options.role);
    const spawnedAt = Date.now();
    const child = spawn(process.execPath, args, {
      cwd: hooklineDir,
      env: {
        ...process.env,
        HOOKLINE_PORT: "0",
        HOOKLINE_HOST: "127.0.0.1",
        HOOKLINE_DATA_DIR: options.dataDir,
        HOOKLINE_ADMIN_TOKEN: ADMIN_TOKEN,
        HOOKLINE_ALLOW_PRIVATE_TARGETS: "1",
        HOOKLINE_LOG_LEVEL: "warn",
        HOOKLINE_SHUTDOWN_TIMEOUT_MS: "2000",
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    spawned.add(child);
    child.once("exit", () => spawned.delete(child));
    let out = "";
    const collect = (d: Buffer) => {
      if (out.length < 64_000) out += d.toString();
    };
    child.stdout!.on("data", collect);
    child.stderr!.on("data", collect);
    const exited = new Promise<number | string>((resolve) =>
      child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
    );
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`hookline did not start:\n${out}`));
      }, 60_000);
      const check = () => {
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (!m && !(options.role === "worker" && /is delivering/.test(out))) return;
        clearTimeout(timer);
        resolve(m?.[1] ?? "");
      };
      child.stdout!.on("data", check);
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`hookline exited before starting:\n${out}`));
      });
    });
    const proc = new HooklineProcess(child, url, options.dataDir, exited, spawnedAt, Date.now());
    HooklineProcess.running.add(proc);
    void exited.then(() => HooklineProcess.running.delete(proc));
    proc.output = out;
    child.stdout!.off("data", collect).on("data", (d: Buffer) => proc.append(d));
    child.stderr!.off("data", collect).on("data", (d: Buffer) => proc.append(d));
    return proc;
  }

  /** Kills (-9) every hookline this bench started that is still running. */
  static async killAll(): Promise<void> {
    await Promise.all([...HooklineProcess.running].map((p) => p.stop("SIGKILL")));
  }

  private append(d: Buffer): void {
    if (this.output.length < 64_000) this.output += d.toString();
  }

  /** What the process printed (first 64 KB), for error messages. */
  log(): string {
    return this.output;
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** Peak resident set size so far (VmHWM), in MB (10^6 bytes); null once the process is gone. */
  peakRssMB(): number | null {
    return readStatusKb(this.pid, "VmHWM");
  }

  /** Current resident set size (VmRSS), in MB. */
  rssMB(): number | null {
    return readStatusKb(this.pid, "VmRSS");
  }

  /** CPU time used so far by the whole process (user + system), in ms. */
  cpuMs(): number | null {
    return cpuOf(`/proc/${this.pid}/stat`);
  }

  /** CPU time used so far by the main thread alone (its thread id is the pid), in ms. */
  mainThreadCpuMs(): number | null {
    return cpuOf(`/proc/${this.pid}/task/${this.pid}/stat`);
  }

  /** Whether V8 writes a CPU profile when this process exits (only on a clean exit). */
  get profiling(): boolean {
    return this.child.spawnargs.includes("--cpu-prof");
  }

  /**
   * Stops the process: SIGTERM lets it finish in-flight requests and commit (and write its CPU
   * profile); SIGKILL is the crash case, or just the quickest stop. A profiled process always gets
   * SIGTERM, or its profile would be lost.
   */
  async stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<number | string> {
    await this.api.close();
    const sig = this.profiling ? "SIGTERM" : signal;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(sig);
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 30_000);
    const result = await this.exited;
    clearTimeout(timer);
    return result;
  }
}

function readStatusKb(pid: number, field: string): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    return m ? (Number(m[1]) * 1024) / 1e6 : null;
  } catch {
    return null;
  }
}

/** An endpoint as the bench creates it. */
export interface EndpointSpec {
  url: string;
  uid?: string;
  deliveryPolicy?: unknown;
}

/** The admin API calls used to set scenarios up (not measured). */
export class AdminApi {
  private poolValue: Pool | null = null;

  constructor(readonly url: string) {}

  /** Opened on first use: a worker process, which has no API, never gets a call. */
  private get pool(): Pool {
    this.poolValue ??= new Pool(this.url, { connections: 4 });
    return this.poolValue;
  }

  async call<T>(method: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<T> {
    const res = await this.pool.request({
      method,
      path,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) {
      throw new Error(`${method} ${path} answered ${res.statusCode}: ${text.slice(0, 500)}`);
    }
    return (text ? JSON.parse(text) : null) as T;
  }

  /** Creates an application and returns its id. */
  async createApp(uid: string): Promise<string> {
    const app = await this.call<{ id: string }>("POST", "/api/v1/app", { name: uid, uid });
    return app.id;
  }

  /** Creates an endpoint and returns its id. */
  async createEndpoint(appId: string, spec: EndpointSpec): Promise<string> {
    const ep = await this.call<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, spec);
    return ep.id;
  }

  async close(): Promise<void> {
    await this.poolValue?.close();
  }
}
