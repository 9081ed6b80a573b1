/**
 * Turns zod results into hookline's ValidationError, one problem per bad field with a Svix-style
 * `loc` (["body", "url"], ["query", "limit"], ["path", "app_id"]), and holds the small schemas
 * several resources share.
 */
import { z } from "zod";
import { ValidationError, type FieldProblem } from "../errors.js";
import { hasPrefix, type IdPrefix } from "../ids.js";
import { isLater, isNamedTime, namedTime, type NamedTime } from "./named-time.js";

type Loc = (string | number)[];

/** Parses `input` with `schema` or throws a ValidationError naming every bad field under `root`. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, root: Loc): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw new ValidationError(result.error.issues.map((i) => toProblem(i, input, root)));
}

function toProblem(issue: z.core.$ZodIssue, input: unknown, root: Loc): FieldProblem {
  const path: Loc = issue.path.map((p) => (typeof p === "number" ? p : String(p)));
  const custom = issue.code === "custom" ? (issue.params as { type?: unknown } | undefined) : null;
  // A type check (or a plain custom one) failing on nothing is a missing field; problems found by
  // domain validators (they carry a type) keep their own words.
  const typeCheck =
    issue.code === "invalid_type" || (custom !== null && custom?.type === undefined);
  if (typeCheck && valueAt(input, path) === undefined) {
    return { loc: [...root, ...path], msg: "field required", type: "missing" };
  }
  const type = typeof custom?.type === "string" ? custom.type : issue.code;
  return { loc: [...root, ...path], msg: issue.message, type };
}

function valueAt(input: unknown, path: Loc): unknown {
  let v = input;
  for (const key of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<string | number, unknown>)[key];
  }
  return v;
}

/** Adds a problem found outside zod (e.g. by a domain validator) to a zod refinement context. */
export function addProblems(ctx: z.RefinementCtx, problems: readonly FieldProblem[]): void {
  for (const p of problems) {
    ctx.addIssue({ code: "custom", message: p.msg, path: p.loc, params: { type: p.type } });
  }
}

/** Throws one ValidationError holding the problems of every failed check, or returns. */
export function throwIfProblems(problems: FieldProblem[]): void {
  if (problems.length > 0) throw new ValidationError(problems);
}

/** Runs `fn`; if it throws a ValidationError, returns its problems instead. */
export function problemsOf(fn: () => unknown): FieldProblem[] {
  try {
    fn();
    return [];
  } catch (err) {
    if (err instanceof ValidationError) return err.problems;
    throw err;
  }
}

// ---- shared schemas ---------------------------------------------------------------------------

export const NAME_PATTERN = /^[a-zA-Z0-9\-_.]+$/;

/** Whether a name is "." or "..": clients resolve them in a URL path as "here" and "up a level". */
export const isDotSegment = (s: string): boolean => s === "." || s === "..";

/** An application or endpoint uid: letters, digits, `-_.`, 1–256 characters. */
export const Uid = z
  .string()
  .max(256)
  .regex(NAME_PATTERN, "may contain only letters, digits, '-', '_' and '.'")
  // Typed, so it keeps its words where the raw input has no value at its path (a comma-joined
  // query split into a list), instead of being taken for a missing field.
  .refine((s) => !isDotSegment(s), {
    message: "must not be '.' or '..', which no URL path can name",
    params: { type: "value_error" },
  });

/**
 * The uid of an application (`app`) or endpoint (`ep`): a Uid not shaped as an id of that kind.
 * A record is found by id or uid, the id first: one whose uid is another's id could never be
 * reached by it, and a DELETE by that uid would remove the other.
 */
export const uidOf = (prefix: IdPrefix) =>
  Uid.refine((s) => !hasPrefix(s, prefix), {
    message: `must not be shaped as an id ('${prefix}_' and 26 characters), which it would be taken for`,
    params: { type: "value_error" },
  });

/** An event type name, e.g. `invoice.paid`. */
export const EventTypeName = Uid;

/** Free-form string metadata, as Svix has on applications and endpoints: bounded in size. */
export const Metadata = z
  .record(z.string().max(256), z.string().max(4096))
  .refine((m) => Object.keys(m).length <= 100, "may have at most 100 entries");

/** A rate limit in messages per second; hookline stores it and reports it back. */
export const RateLimit = z.int().min(0).max(1_000_000).nullable().optional();

/** `event_types` as the Svix client sends it (comma-joined), or repeated. */
export const EventTypesQuery = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).filter(Boolean))
  .pipe(z.array(EventTypeName).max(250));

/** A query flag sent by the Svix client as "true" or "false". */
export const QueryBool = z
  .enum(["true", "false"], { error: 'must be "true" or "false"' })
  .transform((v) => v === "true");

/**
 * What a time that is refused is told: most often it lacks its zone (`2026-01-01T12:00:00`), which
 * ISO-8601 allows but which names no instant; "must be an ISO-8601 date-time" alone said it was
 * none.
 */
export const DATE_TIME_ERROR =
  "must be an ISO-8601 date-time with seconds and Z or an offset, such as 2026-01-01T12:00:00Z or 2026-01-01T13:00:00+01:00";

/** A space before a time's closing offset: its `+`, sent unencoded in a query string. */
const UNENCODED_PLUS_OFFSET = /(\d) (\d{2}:\d{2})$/;

/**
 * An ISO-8601 time in a query string, as named, finer than a millisecond too (see named-time.ts;
 * each window's edges are rounded to the store's milliseconds where they are used). A `+` offset
 * typed into a URL as written (`after=…T13:00:00+01:00`, as curl sends it) arrives as a space,
 * which a query string means by `+`; no time has a space there, so it is read as the `+` it was.
 */
export const QueryTime = z
  .preprocess(
    (v) => (typeof v === "string" ? v.replace(UNENCODED_PLUS_OFFSET, "$1+$2") : v),
    z.iso.datetime({ offset: true, error: DATE_TIME_ERROR }),
  )
  .transform(namedTime);

/**
 * A list's `before` and `after` leave out their own instants, so `before` not later than `after`
 * (the two swapped, most often) lists nothing: an empty page would read as "none in that window",
 * so it is refused, naming `before`, as a DLQ window or an endpoint's stats window is. Judged on
 * the times as named: `before` a microsecond later than `after` is a window, though it holds no
 * millisecond a record could have been made at (its answer is an empty page, and true).
 */
export function beforeLaterThanAfter(
  q: { before?: NamedTime; after?: NamedTime },
  ctx: z.RefinementCtx,
): void {
  if (!isNamedTime(q.before) || !isNamedTime(q.after) || isLater(q.before, q.after)) return;
  ctx.addIssue({
    code: "custom",
    path: ["before"],
    message: "must be later than after: the list leaves out both instants, so it would be empty",
    params: { type: "value_error" },
  });
}

const LIMIT_MESSAGE = "must be a whole number from 1 to 250";

/** Cursor pagination as Svix does it. */
export const ListQuery = z.object({
  limit: z.coerce
    .number({ error: LIMIT_MESSAGE })
    .int(LIMIT_MESSAGE)
    .min(1, LIMIT_MESSAGE)
    .max(250, LIMIT_MESSAGE)
    .default(50),
  iterator: z.string().max(512).optional(),
  order: z.enum(["ascending", "descending"]).optional(),
});

/**
 * The iterator of a list of records with ids of one kind: the last id of the page before (each
 * store pages by id). Any other text is no page's iterator, and was answered with an empty last
 * page as if the list had ended there; it is refused, so a mangled or foreign cursor is seen.
 */
export const idIterator = (prefix: IdPrefix) =>
  z
    .string()
    .max(512)
    .refine((s) => hasPrefix(s, prefix), {
      message: `must be the iterator a page of this list answered: an id, '${prefix}_' and 26 characters`,
      params: { type: "value_error" },
    });

/** ListQuery of a list of records with ids of one kind, whose iterator is such an id. */
export const listQueryOf = (prefix: IdPrefix) =>
  ListQuery.extend({ iterator: idIterator(prefix).optional() });

/** How deeply JSON hookline stores may nest; deeper documents are refused, not half-handled. */
export const MAX_JSON_DEPTH = 64;

/** A JSON object (not an array, not null), nested at most MAX_JSON_DEPTH levels. */
export const JsonObject = z
  .custom<Record<string, unknown>>(
    (v) => typeof v === "object" && v !== null && !Array.isArray(v),
    { message: "must be a JSON object" },
  )
  .refine((v) => jsonDepth(v) <= MAX_JSON_DEPTH, {
    message: `must not nest deeper than ${MAX_JSON_DEPTH} levels`,
  });

/** The nesting depth of a parsed JSON value, walked without recursion. */
export function jsonDepth(root: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    max = Math.max(max, depth);
    if (max > MAX_JSON_DEPTH) return max;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return max;
}

const NUL_MESSAGE = "must not contain a NUL character";
const SURROGATE_MESSAGE =
  "must be well-formed text: a lone UTF-16 surrogate (\\ud800 to \\udfff without its pair) cannot be stored";
// Half of a pair with no other half beside it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What no stored text can hold, or null: a NUL, or a lone surrogate (UTF-8 has no spelling). */
function unstorable(s: string): string | null {
  if (s.includes("\0")) return NUL_MESSAGE;
  return LONE_SURROGATE.test(s) ? SURROGATE_MESSAGE : null;
}

const PROTO_KEY_MESSAGE =
  "a key named __proto__ is taken only inside a message's payload or an event type's schemas";

/** At most this many such problems are named; one is enough to refuse a request. */
const MAX_TEXT_PROBLEMS = 20;

interface Visit {
  value: unknown;
  parent: Visit | null;
  key: string | number;
}

/**
 * Where `root` holds a NUL character or a lone UTF-16 surrogate, in a string or an object key:
 * none of hookline's fields means one, no PostgreSQL text column can store a NUL, and neither
 * store keeps a lone surrogate as sent (each reads back U+FFFD, so two event ids could become
 * one). With `protoKeys`, also where an object has a `__proto__` key: none of hookline's fields
 * is so named, and a record (metadata, headers) would drop it unseen, as zod builds its output.
 * Top-level fields named in `freeJson` are the caller's own JSON, stored as written, and are not
 * looked into. Linear in the size of `root` however deep it nests: a field's path is only spelled
 * out for a problem.
 */
export function textProblems(
  root: unknown,
  base: Loc,
  freeJson: readonly string[] = [],
  protoKeys = false,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const found = (at: Visit, msg: string): void => {
    const loc: Loc = [];
    for (let v: Visit | null = at; v?.parent; v = v.parent) loc.push(v.key);
    // The root itself has no key: a problem there is at `base`.
    problems.push({ loc: [...base, ...loc.reverse()], msg, type: "value_error" });
  };
  const stack: Visit[] = [];
  // Strings are looked at where they are met; only objects and arrays are visited.
  const look = (value: unknown, parent: Visit | null, key: string | number): void => {
    if (typeof value === "string") {
      const msg = unstorable(value);
      if (msg) found({ value, parent, key }, msg);
    } else if (typeof value === "object" && value !== null) {
      stack.push({ value, parent, key });
    }
  };
  look(root, null, "");
  while (stack.length && problems.length < MAX_TEXT_PROBLEMS) {
    const at = stack.pop()!;
    const v = at.value as Record<string, unknown> | unknown[];
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) look(v[i], at, i);
      continue;
    }
    for (const key of Object.keys(v)) {
      if (at.parent === null && freeJson.includes(key)) continue;
      const msg = protoKeys && key === "__proto__" ? PROTO_KEY_MESSAGE : unstorable(key);
      if (msg) found({ value: v[key], parent: at, key }, msg);
      else look(v[key], at, key);
    }
  }
  return problems;
}

/** Path parameters are ids or uids; anything longer than any id could be is refused. */
export function checkPathParams(params: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const problems: FieldProblem[] = [];
  for (const [name, value] of Object.entries((params ?? {}) as Record<string, unknown>)) {
    const v = String(value);
    if (v.length === 0 || v.length > 256) {
      problems.push({
        loc: ["path", name],
        msg: "must be 1 to 256 characters",
        type: "value_error",
      });
    } else if (v.includes("\0")) {
      problems.push({ loc: ["path", name], msg: NUL_MESSAGE, type: "value_error" });
    }
    out[name] = v;
  }
  throwIfProblems(problems);
  return out;
}
