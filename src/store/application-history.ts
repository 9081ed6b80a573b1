/**
 * What deleting an application deletes of its history, table by table, in this order: a row goes
 * before the rows it names. Both adapters run these, each with its own placeholder.
 */

/** A table of an application's history, and how its rows of one application are found. */
export interface HistoryTable {
  table: string;
  /** The condition picking the application's rows, its id bound to `param`. */
  where(param: string): string;
}

// Attempts and deliveries have no index by application: each would cost every accepted message
// another index entry. They are found through the application's messages (messages_by_app),
// then each table's index by message; `app_id = ?` read the whole table, holding the writer
// for as long as every application's history took to read.
const throughMessages = (param: string) =>
  `message_id IN (SELECT id FROM messages WHERE app_id = ${param})`;
const byApplication = (param: string) => `app_id = ${param}`;

export const APPLICATION_HISTORY: readonly HistoryTable[] = [
  { table: "attempts", where: throughMessages },
  { table: "dead_letters", where: byApplication },
  { table: "dead_letter_overflow", where: byApplication },
  { table: "deliveries", where: throughMessages },
  { table: "messages", where: byApplication },
];
