/**
 * The calls that pick an application's rows by application (its token list, expire-all's pages,
 * the application's deletion) or its tokens by expiry (retention), for the tests that ask each
 * adapter how its statements read them. Every portal link adds a token kept a week by default,
 * and every message its delivery and attempts: a statement reading a whole table for one
 * application costs more with every application's history.
 */
import type { Application } from "../../src/domain/types.js";
import { newId } from "../../src/ids.js";
import type { Store } from "../../src/store/port.js";
import { deadLetter } from "./behaviour/dlq-fixtures.js";
import { accept, aToken, HOUR, seedApp, SECOND, T0 } from "./behaviour/fixtures.js";

/**
 * Whether a statement reads or changes rows (not a migration, not an insert) and may pick them by
 * application or expiry.
 */
export function picksRows(sql: string): boolean {
  return /^\s*(SELECT|UPDATE|DELETE|WITH)\b/i.test(sql) && /\b(app_id|expires_at)\b/.test(sql);
}

/** An application with history (an attempt, a dead letter, a pending delivery) and three tokens. */
export async function anApplicationWithHistory(store: Store): Promise<Application> {
  const { app } = await seedApp(store);
  await deadLetter(store, app.id);
  await accept(store, app.id, { now: T0 + 2 * SECOND });
  for (let i = 0; i < 3; i++) {
    await store.createApiToken(
      aToken({ id: newId("tok", T0 + i), scope: "app", appId: app.id, expiresAt: T0 + HOUR }),
    );
  }
  return app;
}

/**
 * Lists the application's tokens (a first page and a next one, as expire-all walks them, and
 * the revoked too), prunes expired tokens, and deletes the application.
 */
export async function readThenDelete(store: Store, app: Application): Promise<void> {
  const first = await store.listApiTokens({ limit: 2, appId: app.id, unrevoked: true });
  await store.listApiTokens({ limit: 2, appId: app.id, unrevoked: true, iterator: first.iterator });
  await store.listApiTokens({ limit: 2, appId: app.id });
  await store.pruneExpired({ now: T0 + 2 * HOUR, retentionMs: HOUR, batchSize: 10 });
  await store.deleteApplication(app.id);
}
