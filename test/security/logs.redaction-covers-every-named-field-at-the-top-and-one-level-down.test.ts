/**
 * The logger's safety net (REDACTED_LOG_PATHS) writes "[Redacted]" for the fields security.md
 * names: `secret`, `secrets`, `headers.authorization`, `headers.cookie` and the encryption keys.
 * A line's own `headers` were not covered, only those one level down (`req.headers`), so a line
 * logging a request's headers as `headers` carried its bearer token and cookies. Each name is now
 * redacted among a line's own fields and one level down, as security.md says.
 */
import { expect, it } from "vitest";
import { REDACTED_LOG_PATHS } from "../../src/app.js";
import { loggerToLines } from "../support/log-lines.js";

it("redacts each named field among a line's own fields and one level down", () => {
  const { logger: log, lines } = loggerToLines({ level: "info", redact: REDACTED_LOG_PATHS });
  const named = (v: string) => ({
    secret: `${v}-secret`,
    secrets: { current: `${v}-secrets` },
    headers: { authorization: `${v}-authorization`, cookie: `${v}-cookie`, accept: "json" },
    encryptionKey: `${v}-key`,
    encryptionOldKeys: [`${v}-old-key`],
  });
  log.info(named("TOP"), "the line's own fields");
  log.info({ endpoint: named("NESTED") }, "one level down");

  const all = lines.join("");
  for (const v of ["TOP", "NESTED"]) {
    for (const field of ["secret", "secrets", "authorization", "cookie", "key", "old-key"]) {
      expect(all).not.toContain(`${v}-${field}`);
    }
  }
  // What is not named stays.
  expect(all).toContain('"accept":"json"');
});
