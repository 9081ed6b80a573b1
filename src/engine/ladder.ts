import type { Random } from "../clock.js";
import { ValidationError, type FieldProblem } from "../errors.js";

/** How a retry's actual delay is drawn around (or instead of) its nominal delay. */
export type JitterSpec =
  | { strategy: "none" }
  | { strategy: "proportional"; ratio: number }
  | { strategy: "full" }
  | { strategy: "equal" }
  | { strategy: "decorrelated" };

/** Names of the built-in retry policies. */
export type PresetName = "default" | "svix" | "standard-webhooks" | "three-day" | "manual";

/** A retry policy as a user writes it: a preset, an explicit list, or an exponential rule (seconds). */
export type RetryPolicySpec =
  | { preset: PresetName }
  | { delays: number[]; jitter?: JitterSpec; window?: number; maxDelay?: number }
  | {
      base: number;
      factor: number;
      cap: number;
      attempts: number;
      window: number;
      jitter?: JitterSpec;
    };

/** A validated retry policy with every value resolved, in milliseconds. */
export interface RetryLadder {
  name: string;
  attempts: number;
  nominalDelaysMs: number[];
  maxDelayMs: number;
  windowMs: number;
  jitter: JitterSpec;
}

/** What to do with a receiver's Retry-After header (see retry-after.ts). */
export type RetryAfterDecision =
  | { kind: "honoured"; delayMs: number }
  | { kind: "capped"; delayMs: number; requestedMs: number }
  | { kind: "ignored"; reason: "too-long"; requestedMs: number }
  /** `value` as it came, cut short and made printable (see retry-after.ts), for the attempt. */
  | { kind: "ignored"; reason: "malformed"; value: string };

/** The next attempt's time, or why there is none. */
export type NextStep =
  | { kind: "retry"; at: number; delayMs: number; source: "ladder" | "retry-after" }
  | { kind: "exhausted"; reason: "attempts" | "window" };

/** The schedule as shown to users in the API and docs (seconds). */
export interface PublishedSchedule {
  preset: string;
  attempts: number;
  windowSeconds: number;
  maxDelaySeconds: number;
  jitter: JitterSpec;
  retries: {
    attempt: number;
    nominalDelaySeconds: number;
    minDelaySeconds: number;
    maxDelaySeconds: number;
    nominalOffsetSeconds: number;
  }[];
  description: string;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The longest one attempt can take (the largest request timeout); a default window allows it. */
export const ATTEMPT_ALLOWANCE_MS = 30 * SECOND;

/** Bounds a policy must respect (seconds), so a typo cannot park a message for a year. */
export const LADDER_LIMITS = {
  maxAttempts: 50,
  maxDelaySeconds: 7 * 86_400,
  maxWindowSeconds: 30 * 86_400,
};

/**
 * `base × factor^i`, at most `cap`. A base of 0 stays 0 however large the power: 0 × Infinity
 * (a factor that overflows) would be NaN, which no cap catches and no window check refuses.
 */
function growth(base: number, factor: number, i: number, cap: number): number {
  return base === 0 ? 0 : Math.min(cap, base * factor ** i);
}

// "As many attempts as fit": count exponential retries until the next would pass the window.
function attemptsThatFit(base: number, factor: number, cap: number, window: number): number {
  let offset = 0;
  let attempts = 1;
  while (attempts < LADDER_LIMITS.maxAttempts) {
    const delay = growth(base, factor, attempts - 1, cap);
    if (offset + delay > window) break;
    offset += delay;
    attempts++;
  }
  return attempts;
}

/** The built-in policies; `default` gives up after about 12.8 h of nominal delays. */
export const PRESETS: Record<PresetName, RetryPolicySpec> = {
  default: {
    base: 30,
    factor: 4,
    cap: 5 * 3600,
    attempts: 8,
    window: 24 * 3600,
    jitter: { strategy: "proportional", ratio: 0.2 },
  },
  // Each window holds every attempt even when all draw the top of their jitter and each takes
  // the longest request timeout (27.6 h and 75.6 h of nominal delays, plus 10 %).
  svix: {
    delays: [5, 300, 1800, 7200, 18_000, 36_000, 36_000],
    window: 31 * 3600,
    jitter: { strategy: "proportional", ratio: 0.1 },
  },
  // The example schedule in the Standard Webhooks specification.
  "standard-webhooks": {
    delays: [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400],
    window: 84 * 3600,
    jitter: { strategy: "proportional", ratio: 0.1 },
  },
  "three-day": {
    base: 60,
    factor: 3,
    cap: 12 * 3600,
    attempts: attemptsThatFit(60, 3, 12 * 3600, 72 * 3600),
    window: 72 * 3600,
    jitter: { strategy: "proportional", ratio: 0.2 },
  },
  manual: { delays: [], window: 0, jitter: { strategy: "none" } },
};

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const toMs = (seconds: number): number => Math.round(seconds * SECOND);
const STRATEGIES = ["none", "proportional", "full", "equal", "decorrelated"];

/** Validates a policy and resolves it to milliseconds; throws ValidationError naming each bad field under `path`. */
export function resolveLadder(
  spec: RetryPolicySpec,
  path: (string | number)[] = ["retry"],
): RetryLadder {
  const problems: FieldProblem[] = [];
  const bad = (loc: (string | number)[], msg: string, type: string): void => {
    problems.push({ loc: [...path, ...loc], msg, type });
  };
  const raw: unknown = spec;
  let ladder: RetryLadder | null = null;
  const forms = isObj(raw) ? ["preset", "delays", "base"].filter((k) => k in raw) : [];
  if (!isObj(raw) || forms.length !== 1) {
    bad([], "give exactly one of preset, delays, or base (with factor, cap...)", "invalid_form");
  } else if ("preset" in raw) {
    const name = raw.preset;
    if (typeof name === "string" && Object.hasOwn(PRESETS, name)) {
      const resolved = resolveLadder(PRESETS[name as PresetName], path);
      return { ...resolved, name };
    }
    bad(["preset"], `must be one of ${Object.keys(PRESETS).join(", ")}`, "unknown_preset");
  } else {
    const jitter = resolveJitter(raw.jitter, bad);
    ladder =
      "delays" in raw ? resolveExplicit(raw, jitter, bad) : resolveExponential(raw, jitter, bad);
  }
  if (problems.length > 0 || ladder === null) throw new ValidationError(problems);
  return ladder;
}

type Bad = (loc: (string | number)[], msg: string, type: string) => void;

const EXPONENTIAL_FIELDS = ["base", "cap", "factor", "attempts", "window"];

// The fields each form of a policy acts on, keyed by the field that names the form.
const FORM_FIELDS: Record<string, readonly string[]> = {
  preset: ["preset"],
  delays: ["delays", "jitter", "window", "maxDelay"],
  base: ["base", "factor", "cap", "attempts", "window", "jitter"],
};

/**
 * Where a policy a user sent has fields that its form (or its jitter strategy) would ignore, as
 * `extra_forbidden` problems under `path`. Kept apart from resolveLadder, which must go on
 * resolving policies stored before this check existed.
 */
export function ignoredRetryFields(raw: unknown, path: (string | number)[]): FieldProblem[] {
  if (!isObj(raw)) return [];
  const forms = Object.keys(FORM_FIELDS).filter((k) => k in raw);
  const allowed = forms.length === 1 ? FORM_FIELDS[forms[0]!] : undefined;
  if (!allowed) return [];
  const problems: FieldProblem[] = [];
  const ignored = (loc: (string | number)[], msg: string): void => {
    problems.push({ loc: [...path, ...loc], msg, type: "extra_forbidden" });
  };
  for (const key of Object.keys(raw)) {
    if (!allowed.includes(key)) ignored([key], `is not a field of a ${forms[0]} policy`);
  }
  const jitter = allowed.includes("jitter") ? raw.jitter : undefined;
  if (isObj(jitter)) {
    const takes = jitter.strategy === "proportional" ? ["strategy", "ratio"] : ["strategy"];
    for (const key of Object.keys(jitter)) {
      if (!takes.includes(key)) ignored(["jitter", key], "is not used by this jitter strategy");
    }
  }
  return problems;
}

function resolveJitter(raw: unknown, bad: Bad): JitterSpec {
  // A custom policy without jitter gets none: what the user wrote is what runs.
  if (raw === undefined) return { strategy: "none" };
  if (!isObj(raw) || typeof raw.strategy !== "string" || !STRATEGIES.includes(raw.strategy)) {
    bad(["jitter", "strategy"], `must be one of ${STRATEGIES.join(", ")}`, "invalid_choice");
    return { strategy: "none" };
  }
  if (raw.strategy !== "proportional") return { strategy: raw.strategy } as JitterSpec;
  if (!isNum(raw.ratio) || raw.ratio <= 0 || raw.ratio > 1) {
    bad(["jitter", "ratio"], "must be a number greater than 0 and at most 1", "out_of_range");
    return { strategy: "none" };
  }
  return { strategy: "proportional", ratio: raw.ratio };
}

// A window of 0 only makes sense when there is nothing to retry (the manual preset).
function checkWindow(raw: unknown, retries: number, bad: Bad): number {
  const max = LADDER_LIMITS.maxWindowSeconds;
  // Checked in milliseconds, as it is kept: a window that rounds to 0 would exhaust every retry.
  if (!isNum(raw) || raw < 0 || raw > max || (toMs(raw) === 0 && retries > 0)) {
    bad(["window"], `must be at least 0.001 s and at most ${max} s (30 days)`, "out_of_range");
    return 0;
  }
  return toMs(raw);
}

function checkDelay(raw: unknown, loc: (string | number)[], bad: Bad): number | null {
  const max = LADDER_LIMITS.maxDelaySeconds;
  if (!isNum(raw) || raw < 0 || raw > max) {
    bad(loc, `must be a number of seconds from 0 to ${max} (7 days)`, "out_of_range");
    return null;
  }
  return toMs(raw);
}

function resolveExplicit(raw: Record<string, unknown>, jitter: JitterSpec, bad: Bad): RetryLadder {
  const list = Array.isArray(raw.delays) ? (raw.delays as unknown[]) : null;
  const most = LADDER_LIMITS.maxAttempts - 1;
  if (list === null) bad(["delays"], "must be a list of seconds", "invalid_type");
  else if (list.length > most) bad(["delays"], `at most ${most} delays`, "too_long");
  const delays: number[] = [];
  (list ?? []).forEach((value, i) => {
    const ms = checkDelay(value, ["delays", i], bad);
    if (ms === null) return;
    const previous = delays.at(-1) ?? 0;
    // A shrinking ladder is almost always a typo, and breaks "each wait is at least the last".
    if (ms < previous) bad(["delays", i], "must not be shorter than the one before", "decreasing");
    delays.push(Math.max(ms, previous));
  });
  const largest = delays.at(-1) ?? 0;
  const limitMs = toMs(LADDER_LIMITS.maxDelaySeconds);
  let maxDelayMs: number;
  if (raw.maxDelay !== undefined) {
    maxDelayMs = checkDelay(raw.maxDelay, ["maxDelay"], bad) ?? largest;
    if (maxDelayMs < largest) bad(["maxDelay"], "must be at least every delay", "out_of_range");
  } else {
    // Leave room for upward jitter on the longest delay, so ±ratio stays symmetric.
    const ratio = jitter.strategy === "proportional" ? jitter.ratio : 0;
    maxDelayMs = Math.max(largest, Math.min(limitMs, Math.round(largest * (1 + ratio))));
  }
  const ladder: RetryLadder = {
    name: "custom",
    attempts: delays.length + 1,
    nominalDelaysMs: delays,
    maxDelayMs,
    windowMs: 0,
    jitter,
  };
  if (raw.window !== undefined) {
    ladder.windowMs = checkWindow(raw.window, delays.length, bad);
  } else if (delays.length > 0) {
    // No window given: make it wide enough that even the longest jittered draws all fit, plus
    // the time the attempts themselves may take (each at most the longest request timeout).
    const total = delays.reduce((a, b) => a + b, 0);
    if (total > LADDER_LIMITS.maxWindowSeconds * SECOND) {
      bad(["delays"], "the delays add up to more than 30 days", "out_of_range");
    }
    const widest =
      delays.reduce((sum, _d, i) => sum + jitterBounds(ladder, i).maxMs, 0) +
      delays.length * ATTEMPT_ALLOWANCE_MS;
    ladder.windowMs = Math.min(LADDER_LIMITS.maxWindowSeconds * SECOND, widest);
  }
  return ladder;
}

function resolveExponential(
  raw: Record<string, unknown>,
  jitter: JitterSpec,
  bad: Bad,
): RetryLadder {
  // The rule takes all five; one left out is said to be required, not also judged out of range.
  const missing = EXPONENTIAL_FIELDS.filter((field) => raw[field] === undefined);
  for (const field of missing) bad([field], "field required", "missing");
  const judge: Bad = (loc, msg, type) => {
    if (!missing.includes(String(loc[0]))) bad(loc, msg, type);
  };
  const base = checkDelay(raw.base, ["base"], judge);
  const cap = checkDelay(raw.cap, ["cap"], judge);
  // Compared only when both are valid: one refused already says so, and is no 0 to compare.
  if (base !== null && cap !== null && cap < base) {
    bad(["cap"], "must be at least base", "out_of_range");
  }
  const baseMs = base ?? 0;
  const capMs = cap ?? 0;
  const factor = isNum(raw.factor) && raw.factor >= 1 ? raw.factor : 1;
  if (factor !== raw.factor) judge(["factor"], "must be a number of at least 1", "out_of_range");
  const a = raw.attempts;
  const okAttempts =
    Number.isInteger(a) && Number(a) >= 1 && Number(a) <= LADDER_LIMITS.maxAttempts;
  const attempts = okAttempts ? Number(a) : 1;
  if (!okAttempts) judge(["attempts"], "must be a whole number from 1 to 50", "out_of_range");
  const windowMs = checkWindow(raw.window, attempts - 1, judge);
  // Rounding after the min keeps the sequence non-decreasing: both steps are monotone.
  const nominalDelaysMs = Array.from({ length: attempts - 1 }, (_, i) =>
    Math.round(growth(baseMs, factor, i, capMs)),
  );
  return { name: "custom", attempts, nominalDelaysMs, maxDelayMs: capMs, windowMs, jitter };
}

/** The range (integer ms) that retry number `retryIndex` (0 = before attempt 2) may be drawn from. */
export function jitterBounds(
  ladder: RetryLadder,
  retryIndex: number,
  previousDelayMs?: number,
): { minMs: number; maxMs: number } {
  const nominal = ladder.nominalDelaysMs[retryIndex];
  if (nominal === undefined) throw new RangeError(`retry ${retryIndex} is not on this ladder`);
  const j = ladder.jitter;
  let lo = nominal;
  let hi = nominal;
  if (j.strategy === "proportional") [lo, hi] = [nominal * (1 - j.ratio), nominal * (1 + j.ratio)];
  else if (j.strategy === "full") lo = 0;
  else if (j.strategy === "equal") lo = nominal / 2;
  else if (j.strategy === "decorrelated") {
    const first = ladder.nominalDelaysMs[0] ?? 0;
    lo = first;
    // Without the previous draw, give the envelope: the widest range any history allows.
    hi = previousDelayMs !== undefined ? 3 * previousDelayMs : first * 3 ** (retryIndex + 1);
    hi = Math.max(lo, Math.min(ladder.maxDelayMs, hi));
  }
  const clamp = (v: number): number => Math.min(ladder.maxDelayMs, Math.max(0, v));
  const minMs = Math.ceil(clamp(lo));
  return { minMs, maxMs: Math.max(minMs, Math.floor(clamp(hi))) };
}

/** After failed attempt number `attemptsMade` (1-based), when is the next one, if any. */
export function nextAttempt(input: {
  ladder: RetryLadder;
  attemptsMade: number;
  firstAttemptAt: number;
  now: number;
  previousDelayMs?: number;
  retryAfter?: RetryAfterDecision | null;
  random: Random;
}): NextStep {
  const { ladder, attemptsMade, retryAfter } = input;
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attemptsMade must be a whole number >= 1, got ${attemptsMade}`);
  }
  if (attemptsMade >= ladder.attempts) return { kind: "exhausted", reason: "attempts" };
  let delayMs: number;
  let source: "ladder" | "retry-after" = "ladder";
  if (retryAfter && retryAfter.kind !== "ignored") {
    // The receiver said when; adding jitter would only make us early or late against its wish.
    delayMs = retryAfter.delayMs;
    source = "retry-after";
  } else {
    const { minMs, maxMs } = jitterBounds(ladder, attemptsMade - 1, input.previousDelayMs);
    const r = Math.min(Math.max(input.random(), 0), 1 - Number.EPSILON);
    delayMs = Math.min(maxMs, minMs + Math.floor(r * (maxMs - minMs + 1)));
  }
  const at = input.now + delayMs;
  if (at > input.firstAttemptAt + ladder.windowMs) return { kind: "exhausted", reason: "window" };
  return { kind: "retry", at, delayMs, source };
}

/** A duration in plain English: "50 ms", "90 s", "2 min 30 s", "2 h 8 min", "5 d 2 h". */
export function formatDuration(ms: number): string {
  if (ms < SECOND) return `${Math.round(ms)} ms`;
  // "60 s" and "90 s" read better than "1 min" and "1 min 30 s".
  if (ms < 2 * MINUTE) return `${Number((ms / SECOND).toFixed(2))} s`;
  const pair = (unit: number, big: string, small: number, little: string): string => {
    const total = Math.round(ms / small);
    const per = unit / small;
    const rest = total % per;
    return `${Math.floor(total / per)} ${big}${rest ? ` ${rest} ${little}` : ""}`;
  };
  // Pick the unit after rounding, so 59 min 59.9 s reads "1 h", not "60 min".
  if (Math.round(ms / SECOND) * SECOND < HOUR) return pair(MINUTE, "min", SECOND, "s");
  // Hours read better than days up to the 72 h and 84 h windows of the presets.
  if (Math.round(ms / MINUTE) * MINUTE < 100 * HOUR) return pair(HOUR, "h", MINUTE, "min");
  return pair(DAY, "d", HOUR, "h");
}

function describeJitter(j: JitterSpec, ladder: RetryLadder): string {
  switch (j.strategy) {
    case "none":
      return "no jitter";
    case "proportional":
      return `±${Number((j.ratio * 100).toFixed(2))} % jitter`;
    case "full":
      return "full jitter: anywhere from 0 to each delay";
    case "equal":
      return "equal jitter: from half of each delay to the delay";
    case "decorrelated": {
      const first = formatDuration(ladder.nominalDelaysMs[0] ?? 0);
      const max = formatDuration(ladder.maxDelayMs);
      return `decorrelated jitter: from ${first} to three times the previous delay, at most ${max}`;
    }
  }
}

/** The ladder as users see it: each retry's nominal delay, jitter range and offset, plus a sentence. */
export function publishSchedule(ladder: RetryLadder): PublishedSchedule {
  let offsetMs = 0;
  let fitting = 1;
  const retries = ladder.nominalDelaysMs.map((nominalMs, i) => {
    offsetMs += nominalMs;
    if (offsetMs <= ladder.windowMs) fitting++;
    const { minMs, maxMs } = jitterBounds(ladder, i);
    return {
      attempt: i + 2,
      nominalDelaySeconds: nominalMs / SECOND,
      minDelaySeconds: minMs / SECOND,
      maxDelaySeconds: maxMs / SECOND,
      nominalOffsetSeconds: offsetMs / SECOND,
    };
  });
  let description: string;
  if (ladder.attempts === 1) {
    description = "1 attempt, at once; no retries";
  } else {
    const delays = ladder.nominalDelaysMs.map(formatDuration).join(", ");
    const jitter = describeJitter(ladder.jitter, ladder);
    description =
      `${ladder.attempts} attempts: at once, then after ${delays} (${jitter}), ` +
      `never later than ${formatDuration(ladder.windowMs)} after the first attempt`;
    if (fitting < ladder.attempts) {
      const what = fitting === 1 ? "1 attempt" : `${fitting} attempts`;
      description += `; the window leaves room for only ${what} on the nominal schedule`;
    }
  }
  return {
    preset: ladder.name,
    attempts: ladder.attempts,
    windowSeconds: ladder.windowMs / SECOND,
    maxDelaySeconds: ladder.maxDelayMs / SECOND,
    jitter: { ...ladder.jitter },
    retries,
    description,
  };
}
