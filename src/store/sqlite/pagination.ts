import type { Database as Db } from "better-sqlite3";
import type { MessageFilter, Page, PageQuery } from "../port.js";

type Row = Record<string, unknown>;

/**
 * Runs `SELECT … FROM … WHERE <where>` one page at a time, keyed on `keyColumn` (ids sort by time,
 * so key order is creation order). Fetches one row more than asked to know whether this is the end.
 */
export function paginate<T>(
  db: Db,
  sql: { select: string; where: string[]; params: unknown[] },
  keyColumn: string,
  q: PageQuery,
  map: (row: Row) => T,
  keyOf: (item: T) => string,
): Page<T> {
  const descending = q.order === "descending";
  const where = [...sql.where];
  const params = [...sql.params];
  if (q.iterator) {
    where.push(`${keyColumn} ${descending ? "<" : ">"} ?`);
    params.push(q.iterator);
  }
  const text =
    `${sql.select}${where.length ? ` WHERE ${where.join(" AND ")}` : ""}` +
    ` ORDER BY ${keyColumn} ${descending ? "DESC" : "ASC"} LIMIT ?`;
  params.push(q.limit + 1);
  const rows = db.prepare(text).all(...params) as Row[];
  const done = rows.length <= q.limit;
  const data = rows.slice(0, q.limit).map(map);
  const last = data[data.length - 1];
  return { data, done, iterator: last ? keyOf(last) : (q.iterator ?? null) };
}

/** The conditions a MessageFilter puts on a `messages` row known as `table`, with their values. */
export function messageConditions(
  f: MessageFilter,
  table: string,
): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (f.eventTypes?.length) {
    where.push(`${table}.event_type IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(f.eventTypes));
  }
  for (const [column, value] of [
    ["channels", f.channel],
    ["tags", f.tag],
  ] as const) {
    if (!value) continue;
    where.push(`EXISTS (SELECT 1 FROM json_each(${table}.${column}) WHERE value = ?)`);
    params.push(value);
  }
  return { where, params };
}
