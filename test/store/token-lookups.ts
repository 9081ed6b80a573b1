/**
 * Every call that picks API tokens by application or by expiry, for the tests that ask each
 * adapter how its statements read them: every portal link adds an application's token, kept a
 * week by default, so a statement that reads all of `api_tokens` costs more with each link made.
 */
import { newId } from "../../src/ids.js";
import type { Store } from "../../src/store/port.js";
import { anApplication, aToken, HOUR, T0 } from "./behaviour/fixtures.js";

/**
 * Whether a statement reads tokens (a query, an update or a deletion, not a migration or an
 * insert) and names a column it may pick them by.
 */
export function picksTokens(sql: string): boolean {
  return (
    /^\s*(SELECT|UPDATE|DELETE|WITH)\b/i.test(sql) &&
    /\bapi_tokens\b[\s\S]*\b(app_id|expires_at)\b/.test(sql)
  );
}

/**
 * An application's list (a first page and a next one, as expire-all walks it), retention's
 * pruning of expired tokens, and the application's deletion.
 */
export async function lookUpTokensEveryWay(store: Store): Promise<void> {
  const app = await store.createApplication(anApplication());
  for (let i = 0; i < 3; i++) {
    await store.createApiToken(
      aToken({ id: newId("tok", T0 + i), scope: "app", appId: app.id, expiresAt: T0 + HOUR }),
    );
  }
  const first = await store.listApiTokens({ limit: 2, appId: app.id, unrevoked: true });
  await store.listApiTokens({ limit: 2, appId: app.id, unrevoked: true, iterator: first.iterator });
  await store.listApiTokens({ limit: 2, appId: app.id });
  await store.pruneExpired({ now: T0 + 2 * HOUR, retentionMs: HOUR, batchSize: 10 });
  await store.deleteApplication(app.id);
}
