import type { MessageFilter, Page, PageQuery } from "../port.js";
import { all, type Conn, type Params, type Row } from "./database.js";

/**
 * Runs `SELECT … FROM … WHERE <where>` one page at a time, keyed on `keyColumn` (ids sort by time,
 * so key order is creation order). Fetches one row more than asked to know whether this is the end.
 */
export async function paginate<T>(
  c: Conn,
  sql: { select: string; where: string[]; params: Params },
  keyColumn: string,
  q: PageQuery,
  map: (row: Row) => T,
  keyOf: (item: T) => string,
): Promise<Page<T>> {
  const descending = q.order === "descending";
  const where = [...sql.where];
  const p = sql.params;
  if (q.iterator) where.push(`${keyColumn} ${descending ? "<" : ">"} ${p.add(q.iterator)}`);
  const text =
    `${sql.select}${where.length ? ` WHERE ${where.join(" AND ")}` : ""}` +
    ` ORDER BY ${keyColumn} ${descending ? "DESC" : "ASC"} LIMIT ${p.add(q.limit + 1)}`;
  const rows = await all(c, text, p.values);
  const done = rows.length <= q.limit;
  const data = rows.slice(0, q.limit).map(map);
  const last = data[data.length - 1];
  return { data, done, iterator: last ? keyOf(last) : (q.iterator ?? null) };
}

/** The conditions a MessageFilter puts on a `messages` row known as `table`; values go to `p`. */
export function messageConditions(f: MessageFilter, table: string, p: Params): string[] {
  const where: string[] = [];
  if (f.eventTypes?.length) where.push(`${table}.event_type = ANY(${p.add(f.eventTypes)}::text[])`);
  for (const [column, value] of [
    ["channels", f.channel],
    ["tags", f.tag],
  ] as const) {
    if (!value) continue;
    where.push(
      `EXISTS (SELECT 1 FROM json_array_elements_text(${table}.${column}) AS e(value)
        WHERE e.value = ${p.add(value)})`,
    );
  }
  return where;
}
