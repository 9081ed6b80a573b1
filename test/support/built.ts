/**
 * The built `hookline` command (bin/hookline.js, running dist/), as tests that start hookline as a
 * process run it: it is what operators run, and a start through tsx took about three times as
 * long (`hookline serve` listening after 2.8–4.3 s against 1.0 s), which the kill -9 soaks pay
 * at every restart. `npm test` builds first; a run of a few files after editing the source
 * without `npm run build` would test the old code, so the first start checks that the build is
 * newer than every source file and fails saying so if not.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** What `npm run build` makes from, and one file of each of its two outputs. */
const SOURCES = ["src", "ui/src", "ui/index.html", "ui/vite.config.ts", "tsconfig.build.json"];
/** The files under SOURCES' folders that the build reads (not an editor's swap or backup). */
const BUILT_FROM = /^[^.].*\.(ts|css|html|json)$/;
const OUTPUTS = ["dist/cli/main.js", "dist/web/index.html"];

let checked = false;

/** The path of bin/hookline.js, once the build is known to be current. */
export function builtCommand(): string {
  if (!checked) {
    const built = Math.min(...OUTPUTS.map((f) => modifiedAt(join(root, f))));
    const newer = SOURCES.map((s) => newestUnder(join(root, s))).find((n) => n.at > built);
    if (newer) {
      throw new Error(
        `${newer.path} is newer than the build this test runs (dist/): run \`npm run build\` first (\`npm test\` does)`,
      );
    }
    checked = true;
  }
  return join(root, "bin/hookline.js");
}

function modifiedAt(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    throw new Error(`${path} is missing: run \`npm run build\` first (\`npm test\` does)`);
  }
}

/** The most recently modified file at or under `path`. */
function newestUnder(path: string): { path: string; at: number } {
  const stat = statSync(path);
  if (!stat.isDirectory()) return { path, at: stat.mtimeMs };
  let newest = { path, at: 0 };
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (!entry.isDirectory() && !BUILT_FROM.test(entry.name)) continue;
    const found = newestUnder(join(path, entry.name));
    if (found.at > newest.at) newest = found;
  }
  return newest;
}
