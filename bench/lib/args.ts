/**
 * The bench's command lines: `npm run bench -- …` read into options (see bench/run.ts), and the
 * options of the scripts beside it. A value comes as the next word or after "=".
 */
import { resolve } from "node:path";

export interface Options {
  quick: boolean;
  only: string[] | null;
  profile: boolean;
  build: boolean;
  hookline: string | null;
  /** Wait for other processes to go quiet before each measurement (default: full runs only). */
  wait: boolean | null;
}

/** The usage line, naming the scenarios `--only` takes. */
export function usage(scenarios: readonly string[]): string {
  return `usage: npm run bench -- [--quick] [--only ${scenarios.join("|")}] [--profile] [--no-build] [--no-wait] [--hookline <dir>]`;
}

/** The options `argv` gives, or "help" when it asks for the usage; a mistake throws, saying so. */
export function parseArgs(argv: readonly string[], scenarios: readonly string[]): Options | "help" {
  const options: Options = {
    quick: false,
    only: null,
    profile: false,
    build: true,
    hookline: null,
    wait: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [name] = a.split("=", 1) as [string];
    // An option's value, after "=" or as the next word (not another option: "--hookline --quick"
    // lacks its directory rather than taking "--quick" for one).
    const value = (missing: string): string => {
      const next = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[i + 1];
      if (!next || (!a.includes("=") && next.startsWith("--"))) {
        throw new Error(`${name} needs ${missing}`);
      }
      if (!a.includes("=")) i++;
      return next;
    };
    if (a === "--quick") options.quick = true;
    else if (a === "--profile") options.profile = true;
    else if (a === "--no-build") options.build = false;
    else if (a === "--no-wait") options.wait = false;
    else if (name === "--hookline") options.hookline = resolve(value("a directory"));
    else if (name === "--only") {
      const names = value("a scenario name").split(",").filter(Boolean);
      options.only = [...(options.only ?? []), ...names];
    } else if (a === "--help" || a === "-h") {
      return "help";
    } else throw new Error(`unknown option ${a} (try --help)`);
  }
  const known = new Set(scenarios);
  for (const name of options.only ?? []) {
    if (!known.has(name)) throw new Error(`no scenario "${name}"; known: ${[...known].join(", ")}`);
  }
  return options;
}

/**
 * The value of option `name` in `argv`, as `name value` or `name=value`; undefined when the option
 * is not given. Given without a value, it throws naming the option rather than let the script
 * run on its default (another build than the one asked for, with `--hookline`).
 */
export function optionValue(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value =
      a === name ? argv[i + 1] : a.startsWith(`${name}=`) ? a.slice(name.length + 1) : null;
    if (value === null) continue;
    if (!value || (a === name && value.startsWith("--"))) throw new Error(`${name} needs a value`);
    return value;
  }
  return undefined;
}
