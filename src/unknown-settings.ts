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
    .filter((n) => n.startsWith("HOOKLINE_") && !settings.has(n) && !CLIENT_SETTINGS.has(n))
    .sort()
    .map((name) => {
      // DATABASE_URL, the one setting without the prefix, is the likeliest to be given one.
      const bare = name.slice("HOOKLINE_".length);
      return { name, suggestion: settings.has(bare) ? bare : nearest(name, known) };
    });
}

/** One line for the log and the start-up banner. */
export function describeUnknown(u: UnknownSetting): string {
  const hint = u.suggestion ? ` (did you mean ${u.suggestion}?)` : "";
  return `${u.name} is not a hookline setting${hint}; it is ignored`;
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
