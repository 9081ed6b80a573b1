/**
 * The database's encoding, checked before hookline writes anything there. hookline takes in text
 * in any script (application and endpoint names, descriptions, URLs, metadata, receivers'
 * answers); a database in an encoding that cannot hold it (LATIN1, WIN1252, EUC_JP…) refuses it
 * only as it comes, one request at a time, long after start-up went well.
 */
import { ConfigError } from "../../errors.js";

/**
 * Encodings that keep whatever hookline writes. The driver always speaks UTF-8 to the server. In
 * UTF8 it is checked and kept; SQL_ASCII keeps the bytes it is sent as they are, unchecked, and
 * hands them back so: hookline sends only valid UTF-8, and none of its SQL counts, cuts or compares
 * text by character, so everything it writes there comes back as it was.
 */
const HOLDS_EVERY_CHARACTER = new Set(["UTF8", "SQL_ASCII"]);

/** The columns {@link narrowEncodingError} reads, to select with what else a caller asks. */
export const ENCODING_COLUMNS =
  "current_database() AS database, current_setting('server_encoding') AS encoding";

/** A database and its encoding, as {@link ENCODING_COLUMNS} reads them. */
export interface DatabaseEncoding {
  database: string;
  encoding: string;
}

/**
 * The refusal of a database that cannot hold every character hookline accepts, or null for one
 * that can. `setting` names where its URL came from; `remedy` says what to do instead, after the
 * way to make a database that can.
 */
export function narrowEncodingError(
  { database, encoding }: DatabaseEncoding,
  setting: string,
  remedy: string,
): ConfigError | null {
  if (HOLDS_EVERY_CHARACTER.has(encoding)) return null;
  return new ConfigError(
    `the PostgreSQL database ${database} (${setting}) is in the encoding ${encoding}, which cannot hold every character hookline accepts: names, descriptions, URLs, metadata and receivers' answers in any script or with emoji would be refused as they came. Make a database in UTF8 (CREATE DATABASE … ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0) and ${remedy}`,
  );
}
