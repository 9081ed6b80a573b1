/**
 * Files in the data dir that other local users can read. hookline makes its own 0600 (in a 0700
 * dir when it makes that), but keeps the mode of a file that exists: one an older hookline made
 * with the umask's 0644, or one restored from a backup, stays readable by everyone on the host,
 * and without an encryption key it holds endpoint secrets in plaintext. Changing an operator's
 * modes unasked could break their backups, so start-up says so instead (docs/security.md).
 */
import { statSync } from "node:fs";
import { join } from "node:path";

/** The data dir's files hookline keeps secrets in (the database's -wal and -shm take its mode). */
const SECRET_FILES = ["hookline.db", "admin-token"];

/**
 * A warning per such file others can read, naming its mode and the command that fixes it. On
 * PostgreSQL (`sqlite` false) the data dir holds the admin token alone, as secret as ever.
 */
export function exposedFiles(dataDir: string, sqlite = true): string[] {
  const found: string[] = [];
  for (const name of sqlite ? SECRET_FILES : ["admin-token"]) {
    const path = join(dataDir, name);
    let mode: number;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      continue; // not there (an admin token given in the environment)
    }
    if ((mode & 0o077) === 0) continue;
    const fix = name === "hookline.db" ? `chmod 600 ${path}*` : `chmod 600 ${path}`;
    found.push(
      `${path} can be read by other users (mode ${mode.toString(8).padStart(4, "0")}): ${fix}`,
    );
  }
  return found;
}
