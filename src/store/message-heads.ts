/**
 * Message lists that read payloads only where the answer carries them. A list without content
 * (`with_content=false`, as the dashboard asks) reads each message's other columns and never its
 * payload, so nothing is read or opened only to be dropped; one with content chooses its page by
 * the payloads' stored sizes first, then reads those payloads alone, so a page of large payloads
 * ends early instead of being read whole (`ContentQuery.maxPayloadBytes`).
 */
import type { Message } from "../domain/types.js";
import type { ContentQuery, Page } from "./port.js";

/** What a list without content holds for each payload. */
export const NO_PAYLOAD: Buffer = Buffer.alloc(0);

/** Every column of `messages` but the payload. */
const HEAD_COLUMNS = ["id", "app_id", "event_type", "event_id", "channels", "tags"].concat([
  "created_at",
  "deliver_at",
]);

/**
 * The columns of the `messages` row known as `table` without its payload, and the payload's
 * stored size as `payload_bytes`, by the dialect's `sizeOf` (SQLite's `length`, PostgreSQL's
 * `octet_length`: both read the size from the row or its TOAST pointer, not the bytes).
 */
export function messageHeadColumns(table: string, sizeOf: string): string {
  const columns = HEAD_COLUMNS.map((c) => `${table}.${c}`).join(", ");
  return `${columns}, ${sizeOf}(${table}.payload) AS payload_bytes`;
}

/** An item of a list read by head columns, with its message's payload size as stored. */
export interface Sized<T> {
  item: T;
  bytes: number;
}

/** A message read by its head columns, its payload empty until `fillPayloads` fills it. */
export function headFromRow(
  row: Record<string, unknown>,
  messageFromRow: (row: Record<string, unknown>) => Message,
): Sized<Message> {
  return {
    item: { ...messageFromRow(row), payload: NO_PAYLOAD },
    bytes: Number(row.payload_bytes),
  };
}

/**
 * The page as far as its payloads fit `q.maxPayloadBytes` in all, by their stored sizes: the first
 * item always, then each while the sum stays within (no bound without content: nothing is read).
 * A page cut short is not the end: its iterator is its last item, and the client asks on from it.
 */
export function withinPayloadBytes<T>(
  page: Page<Sized<T>>,
  q: ContentQuery,
  keyOf: (item: T) => string,
): Page<T> {
  const max = q.withContent === false ? undefined : q.maxPayloadBytes;
  let kept = page.data.length;
  if (max !== undefined) {
    let sum = 0;
    kept = 0;
    while (kept < page.data.length) {
      sum += page.data[kept]!.bytes;
      if (kept > 0 && sum > max) break;
      kept += 1;
    }
  }
  const data = page.data.slice(0, kept).map((s) => s.item);
  if (kept === page.data.length) return { ...page, data };
  return { data, done: false, iterator: keyOf(data[kept - 1]!) };
}

/** The ids of the messages whose payloads a page needs: none when `q.withContent` is false. */
export function payloadIds<T>(page: Page<T>, q: ContentQuery, messageOf: (item: T) => Message) {
  return q.withContent === false ? [] : page.data.map((item) => messageOf(item).id);
}

/** Fills the page's payloads from `found`, its messages as read by id. */
export function fillPayloads<T>(
  page: Page<T>,
  messageOf: (item: T) => Message,
  found: readonly Message[],
): Page<T> {
  if (found.length === 0) return page;
  const payloads = new Map(found.map((m) => [m.id, m.payload]));
  for (const item of page.data) {
    const m = messageOf(item);
    // Retention may take a message between the two reads: it is listed without its payload then.
    m.payload = payloads.get(m.id) ?? NO_PAYLOAD;
  }
  return page;
}
