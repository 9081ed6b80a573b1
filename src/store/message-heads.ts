/**
 * Message lists that read payloads only where the answer carries them. A list without content
 * (`with_content=false`, as the dashboard asks) reads each message's other columns and never its
 * payload, so nothing is read or opened only to be dropped; one with content reads its page's
 * payloads after the page, by id, in one more read.
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

/** The columns of the `messages` row known as `table` without its payload. */
export function messageHeadColumns(table: string): string {
  return HEAD_COLUMNS.map((c) => `${table}.${c}`).join(", ");
}

/** A message read by its head columns, its payload empty until `fillPayloads` fills it. */
export function headFromRow(
  row: Record<string, unknown>,
  messageFromRow: (row: Record<string, unknown>) => Message,
): Message {
  return { ...messageFromRow(row), payload: NO_PAYLOAD };
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
