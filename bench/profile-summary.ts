/**
 * Summarizes V8 CPU profiles (`--cpu-prof`) of hookline: where the samples fell, by function
 * (self and inclusive) and by area (a hookline source file, a dependency, Node internals, GC).
 *
 *   node --import tsx bench/profile-summary.ts bench/results/profiles/<run>   (or one file)
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { originalPosition } from "./lib/sourcemap.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Where a frame belongs: "src/engine/engine.ts", "undici", "node:internal", "(gc)"… */
function area(url: string, name: string): string {
  if (!url) return name.startsWith("(") ? name : "(native)";
  const path = url.replace(/^file:\/\//, "");
  const nm = path.lastIndexOf("node_modules/");
  if (nm !== -1) {
    const rest = path.slice(nm + "node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (path.startsWith("node:")) return "node (internals)";
  // hookline's built files, from whichever checkout ran: dist/x/y.js is src/x/y.ts.
  const dist = path.lastIndexOf("/dist/");
  if (dist !== -1) return `src/${path.slice(dist + 6).replace(/\.js$/, ".ts")}`;
  const rel = relative(ROOT, path);
  return rel.startsWith("..") ? path : rel;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName || "(anonymous)";
  if (!url) return name;
  // hookline's frames point into dist/*.js; name the src/*.ts line they were built from.
  const path = url.replace(/^file:\/\//, "");
  if (path.includes("/dist/") && !path.includes("node_modules/")) {
    const orig = originalPosition(path, lineNumber);
    if (orig) return `${name}  ${area(url, functionName)}:${orig.line}`;
  }
  return `${name}  ${area(url, functionName)}:${lineNumber + 1}`;
}

/** The summary of one profile as text. */
export function summarizeProfile(file: string, top = 20): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  // For frames without JS source (native code, writev, GC…): which JS function they ran under.
  const nativeCallers = new Map<string, Map<string, number>>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id)!;
    total += dt;
    if (node.callFrame.functionName === "(idle)") {
      idle += dt;
      return;
    }
    const key = label(node);
    self.set(key, (self.get(key) ?? 0) + dt);
    const a = area(node.callFrame.url, node.callFrame.functionName);
    areas.set(a, (areas.get(a) ?? 0) + dt);
    if (!node.callFrame.url) {
      let up = parent.get(id);
      const internal = (n: ProfileNode) => !n.callFrame.url || n.callFrame.url.startsWith("node:");
      while (up !== undefined && internal(byId.get(up)!)) up = parent.get(up);
      const caller = up === undefined ? "(root)" : label(byId.get(up)!);
      const m = nativeCallers.get(key) ?? new Map<string, number>();
      m.set(caller, (m.get(caller) ?? 0) + dt);
      nativeCallers.set(key, m);
    }
    const onStack = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!;
      if (!n.callFrame.url) continue;
      onStack.add(label(n));
    }
    for (const k of onStack) inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
  });
  const busy = total - idle;
  const pct = (v: number) => `${((100 * v) / busy).toFixed(1).padStart(5)} %`;
  const list = (m: Map<string, number>, n: number, filter: (k: string) => boolean = () => true) =>
    [...m]
      .filter(([k]) => filter(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `  ${pct(v)}  ${k}`)
      .join("\n");
  return [
    `== ${relative(ROOT, file)}`,
    `sampled ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s (${((100 * busy) / total).toFixed(0)} %); shares below are of busy time`,
    "-- by area (self time)",
    list(areas, 14),
    `-- top ${top} functions, self time`,
    list(self, top),
    `-- top ${top} hookline functions, inclusive time`,
    list(inclusive, top, (k) => / {2}src\//.test(k)),
    "-- native frames above 2 %, by the first non-Node-internal JS function they ran under",
    [...nativeCallers]
      .filter(([k]) => (self.get(k) ?? 0) / busy > 0.02 && !k.startsWith("("))
      .sort((a, b) => (self.get(b[0]) ?? 0) - (self.get(a[0]) ?? 0))
      .map(([k, m]) => `  ${k}:\n${list(m, 4)}`)
      .join("\n"),
    "",
  ].join("\n");
}

/**
 * Summaries of every .cpuprofile under `path` (a file or a directory). A run whose scenarios
 * started no profiled hookline (`--only lag --profile`) never makes its directory: it says so.
 */
export function summarizeProfiles(path: string): string {
  const files: string[] = [];
  const walk = (p: string) => {
    if (statSync(p).isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
    else if (p.endsWith(".cpuprofile")) files.push(p);
  };
  if (existsSync(path)) walk(path);
  if (files.length === 0) return `no CPU profiles under ${path}\n`;
  return files.map((f) => summarizeProfile(f)).join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = process.argv[2];
  if (!target) {
    process.stderr.write("usage: node --import tsx bench/profile-summary.ts <profile or dir>\n");
    process.exit(2);
  }
  process.stdout.write(summarizeProfiles(target));
}
