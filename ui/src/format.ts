/** How times, durations and rates read on the dashboard. */

/** "3 s ago", "5 min ago", "2 h ago", "4 d ago". */
export function ago(isoTime: string | null | undefined, now = Date.now()): string {
  if (!isoTime) return "never";
  return `${span(now - Date.parse(isoTime))} ago`;
}

/** "in 12 s" or "now". */
export function until(isoTime: string | null | undefined, now = Date.now()): string {
  if (!isoTime) return "—";
  const ms = Date.parse(isoTime) - now;
  return ms <= 0 ? "now" : `in ${span(ms)}`;
}

/** A duration in the largest sensible unit. */
export function span(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86_400) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}

/** Seconds as "30 s", "5 min", "1 h 30 min". */
export function seconds(s: number): string {
  if (s < 60) return `${Math.round(s * 10) / 10} s`;
  const h = Math.floor(s / 3600);
  const m = Math.round((s % 3600) / 60);
  if (h === 0) return `${m} min`;
  return m ? `${h} h ${m} min` : `${h} h`;
}

export const percent = (r: number | null): string =>
  r === null ? "—" : `${Math.round(r * 1000) / 10}%`;

export const time = (isoTime: string | null | undefined): string =>
  isoTime ? new Date(isoTime).toLocaleString() : "—";

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
