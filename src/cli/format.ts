/** Plain-text tables and durations for the CLI's human output (`--json` prints the API's JSON). */

/** Left-aligned columns separated by two spaces, a header line first. */
export function table(headers: string[], rows: (string | number | null)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null ? "-" : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** "3d 4h", "12m 5s", "40s": the two largest units of a span. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const units: [string, number][] = [
    ["d", Math.floor(s / 86_400)],
    ["h", Math.floor((s % 86_400) / 3600)],
    ["m", Math.floor((s % 3600) / 60)],
    ["s", s % 60],
  ];
  const first = units.findIndex(([, n]) => n > 0);
  if (first === -1) return "0s";
  return units
    .slice(first, first + 2)
    .filter(([, n]) => n > 0)
    .map(([u, n]) => `${n}${u}`)
    .join(" ");
}

/** How long ago an ISO time was, from `now`; "-" for none. */
export function ago(iso: string | null, now: number): string {
  return iso ? `${duration(now - Date.parse(iso))} ago` : "-";
}

/**
 * A time given on the command line: ISO-8601 (a clock time with `Z` or an offset; a date alone is
 * that day's start in UTC), or a span from `now` such as `90m`, `2h`, `1d` —
 * back by default (for "since the outage began two hours ago"), ahead with `direction` "ahead"
 * (for "start in half an hour"). Returns ISO-8601, or null when unreadable.
 */
export function parseTime(
  value: string,
  now: number,
  direction: "back" | "ahead" = "back",
): string | null {
  const span = /^(\d+)(s|m|h|d)$/.exec(value.trim());
  if (span) {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[span[2] as "s"];
    const ms = Number(span[1]) * unit;
    const at = new Date(direction === "ahead" ? now + ms : now - ms);
    // Past what a date can hold (about 273,000 years either way): no time at all.
    return Number.isNaN(at.getTime()) ? null : at.toISOString();
  }
  // A Date holds milliseconds: the digits past them are kept aside and sent as given (an offset is
  // whole minutes, so they are the same in UTC), or a window's edge would move by up to one.
  const fraction = /\.(\d{3})(\d*)/.exec(value);
  const finer = fraction?.[2]?.replace(/0+$/, "") ?? "";
  const t = Date.parse(fraction ? value.replace(fraction[0], `.${fraction[1]}`) : value);
  // Date.parse rolls a day its month lacks (2026-02-30) over into the next month: a typo that
  // would select another window than the one meant.
  const day = /(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (Number.isNaN(t) || !day || !dayExists(Number(day[1]), Number(day[2]), Number(day[3]))) {
    return null;
  }
  // A clock time without a zone is read in this machine's time zone (a date alone in UTC): the
  // same words would select another window on a laptop than in a UTC container, hours apart.
  if (/\d:\d{2}/.test(value) && !/(?:Z|[+-]\d{2}:?\d{2})$/i.test(value.trim())) return null;
  const iso = new Date(t).toISOString();
  return finer ? `${iso.slice(0, -1)}${finer}Z` : iso;
}

function dayExists(year: number, month: number, day: number): boolean {
  const at = new Date(Date.UTC(year, month - 1, day));
  return at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
}

/**
 * Text from outside (a receiver's answer, a payload) made safe for a terminal: control characters
 * but tab become visible escapes (`\x1b`), so an escape sequence in it cannot clear the screen,
 * hide lines or write the clipboard. So do the Unicode controls that reorder or break what is
 * shown (bidi overrides and isolates, line and paragraph separators, as `\u202e`): text after a
 * right-to-left override reads backwards, and the operator would see other than what was sent.
 * Lines are the caller's to split first.
 */
export function printable(text: string): string {
  return text.replace(
    /[\x00-\x08\x0a-\x1f\x7f-\x9f]|[\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => {
      const code = c.charCodeAt(0);
      return code > 0xff ? `\\u${code.toString(16)}` : `\\x${code.toString(16).padStart(2, "0")}`;
    },
  );
}
