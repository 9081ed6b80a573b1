/**
 * HOOKLINE_* variables that are no setting of hookline's. A misspelt one (HOOKLINE_RETENTION_DAY)
 * would otherwise be ignored without a word, and the operator would believe it in force. They are
 * reported, not refused: an environment may carry names meant for other tools, and the CLI's own
 * (HOOKLINE_URL, HOOKLINE_TOKEN) are read by the commands that call a running hookline.
 */

/** Read by the CLI's client commands (dlq, drill), not by resolveConfig. */
const CLIENT_SETTINGS: ReadonlySet<string> = new Set(["HOOKLINE_URL", "HOOKLINE_TOKEN"]);

export interface UnknownSetting {
  name: string;
  /** The setting it most likely meant, when one is a typo or two away. */
  suggestion: string | null;
}

/** The HOOKLINE_* names in `names` that are not among `settings` (the names hookline read). */
export function unknownSettings(
  names: Iterable<string>,
  settings: ReadonlySet<string>,
): UnknownSetting[] {
  const known = [...settings].filter((s) => s.startsWith("HOOKLINE_"));
  return [...names]
    .filter(
      // The prefix in any case: an environment file's hookline_port meant a setting as surely as
      // HOOKLINE_port does, and is as surely ignored.
      (n) => n.toUpperCase().startsWith("HOOKLINE_") && !settings.has(n) && !CLIENT_SETTINGS.has(n),
    )
    .sort()
    .map((name) => {
      // Environment names are case-sensitive: HOOKLINE_port is no setting, but meant one.
      const upper = name.toUpperCase();
      // DATABASE_URL, the one setting without the prefix, is the likeliest to be given one.
      const bare = upper.slice("HOOKLINE_".length);
      const suggestion = settings.has(bare)
        ? bare
        : settings.has(upper) || CLIENT_SETTINGS.has(upper)
          ? upper
          : // Its own setting in another unit before a near name: HOOKLINE_ALERT_INTERVAL_MINUTES
            // is a few letters from HOOKLINE_DRILL_INTERVAL_MINUTES, a setting of another meaning.
            (inAnotherUnit(upper, known, true) ??
            nearest(upper, known) ??
            inAnotherUnit(upper, known, false));
      return { name, suggestion };
    });
}

/** One line for the log and the start-up banner. */
export function describeUnknown(u: UnknownSetting): string {
  const unit = u.suggestion ? unitOf(u.suggestion) : null;
  // Given in another unit (or none), the value must be converted too, so the unit is said.
  const inUnit = unit && unitOf(u.name.toUpperCase()) !== unit ? `, in ${unit}` : "";
  const hint = u.suggestion ? ` (did you mean ${u.suggestion}${inUnit}?)` : "";
  return `${u.name} is not a hookline setting${hint}; it is ignored`;
}

/** The units settings' names end in, with the ways they get written. */
const UNITS: Record<string, Unit> = {
  MS: "milliseconds",
  MILLIS: "milliseconds",
  MILLISECONDS: "milliseconds",
  S: "seconds",
  SEC: "seconds",
  SECS: "seconds",
  SECOND: "seconds",
  SECONDS: "seconds",
  MIN: "minutes",
  MINS: "minutes",
  MINUTE: "minutes",
  MINUTES: "minutes",
  H: "hours",
  HOUR: "hours",
  HOURS: "hours",
  DAY: "days",
  DAYS: "days",
  BYTE: "bytes",
  BYTES: "bytes",
  PCT: "percent",
  PERCENT: "percent",
};

type Unit = "milliseconds" | "seconds" | "minutes" | "hours" | "days" | "bytes" | "percent";

function unitOf(name: string): Unit | null {
  return UNITS[name.slice(name.lastIndexOf("_") + 1)] ?? null;
}

/** What a unit measures: a value converts between units of one kind only. */
function kindOf(unit: Unit): string {
  return unit === "bytes" || unit === "percent" ? unit : "time";
}

/** The name without its unit: HOOKLINE_SECRET_GRACE for HOOKLINE_SECRET_GRACE_SECONDS. */
function stemOf(name: string): string {
  return unitOf(name) ? name.slice(0, name.lastIndexOf("_")) : name;
}

// HOOKLINE_SECRET_GRACE_MS for …_SECONDS, HOOKLINE_RETENTION for …_DAYS: too many edits away to
// be a typo, but the same setting in another unit (or none). With `sameKind`, only in a unit its
// value converts from: HOOKLINE_ALERT_EXHAUSTION_MINUTES is the …_FOR_MINUTES a word was left out
// of, a near name, rather than …_PERCENT.
function inAnotherUnit(name: string, known: readonly string[], sameKind: boolean): string | null {
  const stem = stemOf(name);
  const given = unitOf(name);
  const converts = (unit: Unit) => !sameKind || !given || kindOf(given) === kindOf(unit);
  return (
    known.find((k) => {
      const unit = unitOf(k);
      return unit !== null && stemOf(k) === stem && converts(unit);
    }) ?? null
  );
}

// Up to one edit per six characters: DAY for DAYS, SECOND for SECONDS, a swapped letter; not a
// different setting that merely shares the prefix.
function nearest(name: string, known: readonly string[]): string | null {
  let best: { name: string; d: number } | null = null;
  for (const k of known) {
    const d = distance(name, k);
    if (d <= Math.max(2, Math.floor(k.length / 6)) && (!best || d < best.d)) best = { name: k, d };
  }
  return best?.name ?? null;
}

/** Edits (insert, delete, replace, swap two neighbours) turning `a` into `b`. */
function distance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]!.push(j);
        continue;
      }
      const row = rows[i]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      }
      row.push(d);
    }
  }
  return rows[a.length]![b.length]!;
}
