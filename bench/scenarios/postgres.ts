/**
 * The PostgreSQL rows of the table (scenario 2 with one and two worker processes, and later the
 * other scenarios on PostgreSQL). TODO(#8): when the PostgreSQL store lands, start hookline with
 * DATABASE_URL pointing at a fresh database (one per scenario), write the backlog with the
 * adapter's own row shapes (or accept it through the API with delivery paused), run one and then
 * two `hookline serve` processes against it, and time the drain exactly as drain.ts does for
 * SQLite. Until then every row prints the reason it has no value.
 */
import type { Figure } from "../lib/scenario.js";

export const POSTGRES_NA = "n/a (PostgreSQL store not available yet)";

/** Placeholder rows, one per PostgreSQL figure, each with no value and the reason why. */
export function postgresNotAvailable(
  scenario: string,
  rows: { figure: string; target: string | null }[],
): Figure[] {
  return rows.map((r) => ({
    scenario,
    figure: r.figure,
    value: null,
    unit: "deliveries/s",
    ratio: null,
    target: r.target ?? undefined,
    pass: null,
    note: POSTGRES_NA,
  }));
}
