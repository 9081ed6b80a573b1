/**
 * A worker thread's code when hookline runs from its TypeScript sources (the tests, `npm run
 * demo`): the thread's source and what it imports of hookline's, bundled by esbuild (a dev
 * dependency, as tsx is) into one file under node_modules/.cache, where its packages resolve as
 * the sources' do. A thread that loaded the sources through tsx instead registered tsx's loader
 * and transformed each file anew, which every hookline a test starts waited for, and the tests
 * start hundreds. Built hookline never comes here: its threads run the compiled .js files.
 */
import { createHash, randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type * as Esbuild from "esbuild";

const CACHE = new URL("../node_modules/.cache/hookline-threads/", import.meta.url);
/** Bundles of older sources are removed once this old: a process may still be starting one. */
const KEEP_OLD_MS = 24 * 60 * 60 * 1000;

const bundled = new Map<string, URL>();

/**
 * The bundle of `source` (a thread's .ts file), made once per process. The file is named by its
 * content, so processes bundling the same code at once write the same file, each through a
 * temporary file of its own.
 */
export function bundledThread(source: URL): URL {
  const known = bundled.get(source.href);
  if (known) return known;
  const name = fileURLToPath(source).split("/").pop()!.replace(/\.ts$/, "");
  let file: URL;
  try {
    const contents = bundle(source, name);
    const hash = createHash("sha256").update(contents).digest("hex").slice(0, 16);
    file = new URL(`${name}-${hash}.mjs`, CACHE);
    if (!existsSync(file)) {
      mkdirSync(CACHE, { recursive: true });
      const partial = new URL(`${name}-${hash}.${randomUUID()}.tmp`, CACHE);
      writeFileSync(partial, contents);
      renameSync(partial, file);
      removeOld(name, file);
    }
  } catch (err) {
    throw new Error(
      `hookline's ${name} could not be bundled from its sources into ${fileURLToPath(CACHE)} ` +
        "(run from TypeScript, a thread's code is bundled by esbuild, a dev dependency)",
      { cause: err },
    );
  }
  bundled.set(source.href, file);
  return file;
}

function bundle(source: URL, name: string): Uint8Array {
  const esbuild = createRequire(import.meta.url)("esbuild") as typeof Esbuild;
  const out = esbuild.buildSync({
    entryPoints: [fileURLToPath(source)],
    // Where it will be, so that the source map names the sources from there, whatever the
    // working directory; nothing is written to this name.
    outfile: fileURLToPath(new URL(`${name}.mjs`, CACHE)),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: "inline",
    write: false,
  }).outputFiles?.[0];
  if (!out) throw new Error("esbuild made nothing");
  return out.contents;
}

/** Other bundles of `name`, and temporary files left by a process that died, a day old or more. */
function removeOld(name: string, current: URL): void {
  const dir = fileURLToPath(CACHE);
  const keep = fileURLToPath(current);
  for (const entry of readdirSync(dir)) {
    const path = `${dir}${entry}`;
    if (!entry.startsWith(`${name}-`) || path === keep) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > KEEP_OLD_MS) unlinkSync(path);
    } catch {
      // Another process removed it first.
    }
  }
}
