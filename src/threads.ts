/** What hookline's worker threads (sending, checkpointing) share: where their code is, and
 * how they step aside for the main thread. */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readlinkSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { setPriority } from "node:os";
import { fileURLToPath } from "node:url";
import type * as Esbuild from "esbuild";

/**
 * Where a worker thread's code is. Built, it is the .js file beside the module that starts it.
 * Run from TypeScript sources (the tests, `npm run demo`), it is the .ts file bundled into one
 * JavaScript file (see {@link bundledThread}).
 */
export function workerEntry(
  starterUrl: string,
  name: string,
): { file: URL | string; eval: boolean } {
  if (!starterUrl.endsWith(".ts"))
    return { file: new URL(`./${name}.js`, starterUrl), eval: false };
  return { file: bundledThread(new URL(`./${name}.ts`, starterUrl)), eval: false };
}

const bundled = new Map<string, URL>();

/**
 * A thread's TypeScript source and what it imports of hookline's, bundled by esbuild (a dev
 * dependency, as tsx is) once per process into node_modules/.cache, where its packages resolve
 * as the sources' do. A thread loading the sources through tsx instead registered tsx's loader
 * and transformed each file anew: about 0.2 s more for each hookline a test starts (0.65 s
 * against 0.45 s to start on session 55's host), and the tests start hundreds. The file is named
 * by its content, so processes bundling the same code at once write the same file.
 */
function bundledThread(source: URL): URL {
  const known = bundled.get(source.href);
  if (known) return known;
  const esbuild = createRequire(import.meta.url)("esbuild") as typeof Esbuild;
  const out = esbuild.buildSync({
    entryPoints: [fileURLToPath(source)],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: "inline",
    write: false,
  }).outputFiles?.[0];
  if (!out) throw new Error(`esbuild made nothing of ${source.pathname}`);
  const name = source.pathname.split("/").pop()!.replace(/\.ts$/, "");
  const hash = createHash("sha256").update(out.contents).digest("hex").slice(0, 16);
  const dir = new URL("../node_modules/.cache/hookline-threads/", import.meta.url);
  const file = new URL(`${name}-${hash}.mjs`, dir);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const partial = new URL(`${name}-${hash}.${process.pid}.tmp`, dir);
    writeFileSync(partial, out.contents);
    renameSync(partial, file);
  }
  bundled.set(source.href, file);
  return file;
}

/**
 * Called on a worker thread: sets this thread's nice value alone (Linux schedules threads on
 * their own). A helper thread lowers its priority so that the main thread, which answers the API,
 * does not queue behind it for a core (architecture.md, step 7); when the main thread is idle,
 * the helper still gets a whole core. Best effort: false where it is not allowed or not Linux,
 * and the thread keeps the priority it had. Lowering a nice value again (raising the priority)
 * needs CAP_SYS_NICE or a nice limit (RLIMIT_NICE) that allows it; raising it never does.
 */
export function setThreadNiceness(niceness: number): boolean {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, niceness);
    return true;
  } catch {
    return false;
  }
}
