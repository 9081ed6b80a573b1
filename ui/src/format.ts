/** How times, durations and rates read on the dashboard. */

/**
 * Words joined by no-break spaces: a relative time, a duration ("1 h 30 min") or a count and its
 * noun reads as one thing, and a line ending between a number and its unit ("next attempt in 1" /
 * "h") made it hard to read on a phone. Copied, the browser gives them as ordinary spaces. Only
 * for such short groups: a sentence must still break where it may.
 */
const unbroken = (words: string): string => words.replaceAll(" ", "\u00a0");

/**
 * A number, a space and a unit or a noun hookline counts in ("25.0 h", "±20 % jitter",
 * "8 attempts", "3 dead-letter records").
 */
const NUMBER_AND_UNIT =
  /(\d) (ms|s|min|h|d|%|attempts?|retries|records?|dead-letter records?)(?![\p{L}\p{N}_-])/gu;
/** A compound duration's next part: "2 h" then " 8 min", "1 d" then " 3 h". */
const NEXT_PART = /(\d\u00a0(?:d|h|min)) (?=\d+(?:\.\d+)?\u00a0(?:h|min|s|ms)(?![\p{L}\p{N}_]))/gu;

/**
 * hookline's own words (an alert's summary, the retry schedule's description, a job's reason)
 * with each number kept with its unit, and a compound duration whole, by no-break spaces, as
 * the dashboard's own durations are: "waited 2 h 8 min to be sent" ends no line inside "2 h 8
 * min". The rest of the sentence breaks as before.
 */
export const unitsKept = (text: string): string =>
  text.replace(NUMBER_AND_UNIT, "$1\u00a0$2").replace(NEXT_PART, "$1\u00a0");

/** "3 s ago", "5 min ago", "2 h ago", "4 d ago", on one line. */
function agoText(isoTime: string, now: number): string {
  return unbroken(`${span(now - Date.parse(isoTime))} ago`);
}

/** "in 12 s" or "now", on one line. */
function untilText(isoTime: string, now: number): string {
  const ms = Date.parse(isoTime) - now;
  return ms <= 0 ? "now" : unbroken(`in ${span(ms)}`);
}

const RELATIVE = { ago: agoText, until: untilText };

/** Where the exact time of a relative one is, and how the keyboard reaches it. */
export interface Relative {
  /** The text around it says the exact time already ("Since 9:06 AM (5 min ago)"). */
  exactBeside?: boolean;
  /**
   * It stands within parentheses already ("waits for the circuit's probe (in 4 min)"): its exact
   * time follows after a comma, "in 4 min, at 12/6/2026, 9:10:33 AM EST", not in parentheses of
   * its own, which read "(in 4 min (12/6/2026, 9:10:33 AM EST))".
   */
  inParentheses?: boolean;
  /**
   * The time takes the keyboard focus itself, under this `data-key` (kept through a redraw): for
   * a table row with no link or button, which the keyboard could not otherwise be in, so its
   * exact times never showed but to a mouse (style.css).
   */
  focusKey?: string;
}

/**
 * A time relative to now ("5 min ago", "in 12 s") that keeps following the clock: the poll loop
 * rewrites it every tick ({@link refreshRelativeTimes}), so a quiet page does not keep saying
 * "in 7 s" long after. The exact time follows it in parentheses (after a comma where the time
 * stands in parentheses already, {@link Relative.inParentheses}), read by screen readers; in a
 * table it is shown while the keyboard is in its row, elsewhere always (style.css). It was only
 * the tooltip, which neither a keyboard nor a screen reader reaches. The tooltip stays, for the
 * mouse.
 */
function relative(kind: keyof typeof RELATIVE, isoTime: string, o: Relative): HTMLTimeElement {
  const el = document.createElement("time");
  el.dateTime = isoTime;
  el.title = time(isoTime);
  el.dataset.relative = kind;
  // Its ticking is not news: a live region around it (the circuit banner) must not re-announce.
  el.setAttribute("aria-live", "off");
  if (o.focusKey) {
    el.tabIndex = 0;
    el.dataset.key = o.focusKey;
  }
  const said = document.createElement("span");
  said.textContent = RELATIVE[kind](isoTime, Date.now());
  el.append(said);
  if (!o.exactBeside) {
    const exact = document.createElement("span");
    exact.className = "exact";
    // A no-break space: an ordinary one, first in the hidden box (style.css), was dropped.
    exact.textContent = o.inParentheses ? `, at ${time(isoTime)}` : `\u00a0(${time(isoTime)})`;
    el.append(exact);
  }
  return el;
}

/** "5 min ago", kept current, with its exact time; "never" without a time. */
export const ago = (isoTime: string | null | undefined, o: Relative = {}): Node =>
  isoTime ? relative("ago", isoTime, o) : document.createTextNode("never");

/** "in 12 s" or "now", kept current, with its exact time; "—" without a time. */
export const until = (isoTime: string | null | undefined, o: Relative = {}): Node =>
  isoTime ? relative("until", isoTime, o) : document.createTextNode("—");

/** Brings every relative time on the page up to date with the clock. */
export function refreshRelativeTimes(now = Date.now()): void {
  for (const el of document.querySelectorAll<HTMLTimeElement>("time[data-relative]")) {
    const kind = el.dataset.relative as keyof typeof RELATIVE;
    const text = RELATIVE[kind](el.dateTime, now);
    const said = el.firstElementChild!;
    if (said.textContent !== text) said.textContent = text;
  }
}

/**
 * A duration in the largest sensible unit ("59 min", then "1 h", not "60 min"), its number and
 * unit {@link unbroken}, as every duration here.
 */
export const span = (ms: number): string => unbroken(spanWords(ms));

function spanWords(ms: number): string {
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
export const seconds = (s: number): string => unbroken(secondsWords(s));

function secondsWords(s: number): string {
  const tenths = Math.round(s * 10) / 10;
  if (tenths < 60) return `${tenths} s`;
  const minutes = Math.round(s / 60);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (h === 0) return `${m} min`;
  return m ? `${h} h ${m} min` : `${h} h`;
}

/**
 * A latency or an attempt's duration: "850 ms" below a second, then seconds to a tenth ("3.0 s",
 * "15.0 s"), so that a chart's axis label stays short enough to be drawn whole whatever the
 * latency. Every duration on the dashboard reads this way, so a list and a chart agree.
 */
export function latency(ms: number): string {
  const whole = Math.round(ms);
  if (whole < 1000) return unbroken(`${whole} ms`);
  return unbroken(`${(whole / 1000).toFixed(1)} s`);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * The first `max` UTF-16 units of `text` or fewer, ending on a whole character (never half an
 * emoji, which shows as "�"), with "…" when something was left out.
 */
export function startOf(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = "";
  for (const { segment } of graphemes.segment(text)) {
    if (out.length + segment.length > max) break;
    out += segment;
  }
  return `${out}…`;
}

/**
 * A count and its noun, {@link unbroken}: "1 attempt", "2 attempts" (or `many` where the plural
 * is not `one` + s).
 */
export const plural = (n: number, one: string, many = `${one}s`): string =>
  unbroken(`${n} ${n === 1 ? one : many}`);

/** A rate: "2 per second", {@link unbroken}. */
export const perSecond = (n: number): string => unbroken(`${n} per second`);

export const percent = (r: number | null): string =>
  r === null ? "—" : `${Math.round(r * 1000) / 10}%`;

/**
 * An exact time with its time zone ("12/6/2026, 9:06:33 AM EST"): the page shows the browser's
 * time, and a receiver's logs are often in UTC, so a time without its zone could be hours off.
 */
export const time = (isoTime: string | null | undefined): string =>
  isoTime ? new Date(isoTime).toLocaleString(undefined, { timeZoneName: "short" }) : "—";

/**
 * hookline's own text (a replay's answer, a record's history, a job's reason) with each time it
 * names ("queued behind its probe at 2026-12-06T23:10:18.147Z", in UTC) as {@link time} shows
 * times: every other time on the page is the browser's, with its zone.
 */
export const withLocalTimes = (text: string): string =>
  text.replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/g, (iso) => time(iso));

/**
 * The browser's time zone, as a time field is read in: "America/New_York, GMT-05:00" (its offset
 * now), or "UTC".
 */
export function localZone(now = new Date()): string {
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const minutes = -now.getTimezoneOffset();
  if (minutes === 0 && /^(?:Etc\/)?(?:UTC|GMT|UCT|Zulu|Universal)$/.test(name)) return "UTC";
  const abs = Math.abs(minutes);
  const offset =
    `GMT${minutes < 0 ? "-" : "+"}` +
    `${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${name}, ${offset}`;
}

/** datetime-local value → ISO, or undefined when empty. */
export const isoOf = (v: string): string | undefined => (v ? new Date(v).toISOString() : undefined);

/** A datetime-local value (local time, to the second) for `ms`. */
export function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 19);
}

/**
 * A payload as the caller wrote it, indented: the text of the `payload` member of the API's
 * answer, its strings and numbers exactly as written. Parsed and stringified again, integers
 * above 2^53 would show rounded, 1e400 as null and -0 as 0, none of which the receiver was sent.
 */
export function pretty(answer: string): string {
  const text = memberText(answer, "payload");
  return text === undefined ? "" : indentJson(text);
}

/**
 * The `payload` member of the API's answer exactly as written: the bytes hookline sends, which
 * each signature covers (unlike {@link pretty}'s indented text).
 */
export const asSent = (answer: string): string => memberText(answer, "payload") ?? "";

const SPACE = new Set([" ", "\t", "\n", "\r"]);

function skipSpace(text: string, i: number): number {
  while (i < text.length && SPACE.has(text[i]!)) i++;
  return i;
}

/** The index just past the string starting at `i` (its opening quote). */
function stringEnd(text: string, i: number): number {
  for (i++; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}

/** The index just past the value starting at `i`. */
function valueEnd(text: string, i: number): number {
  if (text[i] === '"') return stringEnd(text, i);
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') i = stringEnd(text, i) - 1;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (depth === 0) return i;
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && (c === "," || SPACE.has(c))) return i;
  }
  return i;
}

/** The text of the top-level member `name` of a JSON object's text (the last one, as parsed). */
function memberText(text: string, name: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text[i] !== "{") return undefined;
  let found: string | undefined;
  for (i = skipSpace(text, i + 1); text[i] === '"';) {
    const keyEnd = stringEnd(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    const start = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const end = valueEnd(text, start);
    if (key === name) found = text.slice(start, end);
    i = skipSpace(text, end);
    if (text[i] !== ",") break;
    i = skipSpace(text, i + 1);
  }
  return found;
}

/** JSON text indented by two spaces, every token as written. */
function indentJson(text: string): string {
  let out = "";
  let depth = 0;
  const newline = () => `\n${"  ".repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end - 1;
    } else if (c === "{" || c === "[") {
      const next = skipSpace(text, i + 1);
      if (text[next] === "}" || text[next] === "]") {
        out += c + text[next]!;
        i = next;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === "}" || c === "]") {
      depth--;
      out += newline() + c;
    } else if (c === ",") out += `,${newline()}`;
    else if (c === ":") out += ": ";
    else if (!SPACE.has(c)) out += c;
  }
  return out;
}
