/**
 * Two ways a keyed request's answer fails to be kept, for the tests of writes that keep it in
 * their own transaction: a store whose separate write of an answer fails, and a database that
 * refuses any answer written to a key.
 */
import Database from "better-sqlite3";
import type { Store } from "../../src/store/port.js";
import type { ApiHarness } from "../api/harness.js";
import { adminQuery } from "./postgres.js";

/** The store, whose writes of a key's answer on their own (`finishIdempotent`) all fail. */
export function storeThatCannotKeepAnswers(target: Store): Store {
  return new Proxy(target, {
    get(t, prop, receiver) {
      if (prop === "finishIdempotent") {
        return () => Promise.reject(new Error("the answer could not be written"));
      }
      const value: unknown = Reflect.get(t, prop, receiver);
      return typeof value === "function" ? value.bind(t) : value;
    },
  });
}

/** Makes the database itself refuse to keep any key's answer, as a real store error would. */
export async function refuseAnswers(db: ApiHarness["db"]): Promise<void> {
  if (db.kind === "sqlite") {
    const sqlite = new Database(db.path);
    sqlite.exec(`CREATE TRIGGER refuse_answer BEFORE UPDATE OF state ON idempotency_keys
      BEGIN SELECT RAISE(ABORT, 'answer refused'); END`);
    sqlite.close();
    return;
  }
  const s = `"${db.schema}"`;
  await adminQuery(`CREATE FUNCTION ${s}.refuse_answer() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'answer refused'; END $$`);
  await adminQuery(`CREATE TRIGGER refuse_answer BEFORE UPDATE OF state
    ON ${s}.idempotency_keys FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_answer()`);
}

/** Undoes {@link refuseAnswers}. */
export async function acceptAnswersAgain(db: ApiHarness["db"]): Promise<void> {
  if (db.kind === "sqlite") {
    const sqlite = new Database(db.path);
    sqlite.exec("DROP TRIGGER refuse_answer");
    sqlite.close();
    return;
  }
  await adminQuery(`DROP TRIGGER refuse_answer ON "${db.schema}".idempotency_keys`);
}
