/** How times, durations and rates read on the dashboard. */

/** "3 s ago", "5 min ago", "2 h ago", "4 d ago". */
function agoText(isoTime: string, now: number): string {
  return `${span(now - Date.parse(isoTime))} ago`;
}

/** "in 12 s" or "now". */
function untilText(isoTime: string, now: number): string {
  const ms = Date.parse(isoTime) - now;
  return ms <= 0 ? "now" : `in ${span(ms)}`;
}

const RELATIVE = { ago: agoText, until: untilText };

/**
 * A time relative to now ("5 min ago", "in 12 s") that keeps following the clock: the poll loop
 * rewrites it every tick ({@link refreshRelativeTimes}), so a quiet page does not keep saying
 * "in 7 s" long after. The exact time is its tooltip and its `datetime`.
 */
function relative(kind: keyof typeof RELATIVE, isoTime: string): HTMLTimeElement {
  const el = document.createElement("time");
  el.dateTime = isoTime;
  el.title = time(isoTime);
  el.dataset.relative = kind;
  // Its ticking is not news: a live region around it (the circuit banner) must not re-announce.
  el.setAttribute("aria-live", "off");
  el.textContent = RELATIVE[kind](isoTime, Date.now());
  return el;
}

/** "5 min ago", kept current; "never" without a time. */
export const ago = (isoTime: string | null | undefined): Node =>
  isoTime ? relative("ago", isoTime) : document.createTextNode("never");

/** "in 12 s" or "now", kept current; "—" without a time. */
export const until = (isoTime: string | null | undefined): Node =>
  isoTime ? relative("until", isoTime) : document.createTextNode("—");

/** Brings every relative time on the page up to date with the clock. */
export function refreshRelativeTimes(now = Date.now()): void {
  for (const el of document.querySelectorAll<HTMLTimeElement>("time[data-relative]")) {
    const kind = el.dataset.relative as keyof typeof RELATIVE;
    const text = RELATIVE[kind](el.dateTime, now);
    if (el.textContent !== text) el.textContent = text;
  }
}

/** A duration in the largest sensible unit ("59 min", then "1 h", not "60 min"). */
export function span(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.round(s / 3600);
  if (h < 24) return `${h} h`;
  return `${Math.round(s / 86_400)} d`;
}

/**
 * Seconds as "30 s", "5 min", "1 h 30 min". Rounded to what is shown before splitting into
 * units, so 59.97 s reads "1 min" and 3599 s "1 h", never "60 s" or "60 min".
 */
export function seconds(s: number): string {
  const tenths = Math.round(s * 10) / 10;
  if (tenths < 60) return `${tenths} s`;
  const minutes = Math.round(s / 60);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (h === 0) return `${m} min`;
  return m ? `${h} h ${m} min` : `${h} h`;
}

/**
 * A latency: "850 ms" below a second, then seconds to a tenth ("3.0 s", "15.0 s"), so that a chart's
 * axis label stays short enough to be drawn whole whatever the latency.
 */
export function latency(ms: number): string {
  const whole = Math.round(ms);
  if (whole < 1000) return `${whole} ms`;
  return `${(whole / 1000).toFixed(1)} s`;
}

/** A count and its noun: "1 attempt", "2 attempts" (or `many` where the plural is not `one` + s). */
export const plural = (n: number, one: string, many = `${one}s`): string =>
  `${n} ${n === 1 ? one : many}`;

export const percent = (r: number | null): string =>
  r === null ? "—" : `${Math.round(r * 1000) / 10}%`;

export const time = (isoTime: string | null | undefined): string =>
  isoTime ? new Date(isoTime).toLocaleString() : "—";

/** datetime-local value → ISO, or undefined when empty. */
export const isoOf = (v: string): string | undefined => (v ? new Date(v).toISOString() : undefined);

/** A datetime-local value (local time, to the second) for `ms`. */
export function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 19);
}

/** Pretty JSON for a payload, or the text as it is. */
export function pretty(value: unknown): string {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}
