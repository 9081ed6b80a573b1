/**
 * A database a newer hookline has migrated is refused by an older one. Its newer tables and
 * columns (a worker's claims, an alert's evaluator, a job's holder) would be left unkept, and the
 * newer version, started again later, would trust them; rolling back is restoring the backup taken
 * before the upgrade (docs/runbook.md, "Upgrades").
 */
import { ConfigError } from "../errors.js";

/** The schema version these migrations bring a database to (0 with none). */
export function newestVersion(migrations: readonly { version: number }[]): number {
  return Math.max(0, ...migrations.map((m) => m.version));
}

/** Throws when the ledger's newest version is past the newest migration this hookline knows. */
export function refuseNewerSchema(
  applied: number | null,
  migrations: readonly { version: number }[],
  where: string,
): void {
  const known = newestVersion(migrations);
  if (applied === null || applied <= known) return;
  throw new ConfigError(
    `${where} was migrated by a newer hookline (schema version ${applied}; this version knows ` +
      `up to ${known}): run that version or a later one, or restore the backup taken before the ` +
      "upgrade (docs/runbook.md, Upgrades)",
  );
}
