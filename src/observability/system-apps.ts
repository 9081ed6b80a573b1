/**
 * Applications hookline owns itself: the operational webhooks' application (its endpoints are the
 * operators' registered endpoints, its messages hookline's own events) and the failure drill's.
 * They are ordinary applications to the engine, so signing, the retry ladder and the dead-letter
 * queue are the same code; events about their endpoints never become operational events (no
 * loops). The API lets anyone read them but change them only through their own routes (see
 * api/system-guard.ts).
 */
import type { Clock } from "../clock.js";
import type { Application } from "../domain/types.js";
import { ConflictError } from "../errors.js";
import { newId } from "../ids.js";
import type { Store } from "../store/port.js";

/** The uid of the operational webhooks' application. */
export const OPERATIONAL_APP_UID = "hookline-operational";
/** The uid of the failure drill's application. */
export const DRILL_APP_UID = "hookline-drill";

const NAMES: Record<string, string> = {
  [OPERATIONAL_APP_UID]: "hookline operational webhooks",
  [DRILL_APP_UID]: "hookline failure drills",
};

/** The metadata key (value "true") hookline sets on the applications it makes for itself. */
export const SYSTEM_MARKER = "hookline.system";

/** Whether this uid is one of hookline's own applications', which no one else may take. */
export function isReservedUid(uid: string | null | undefined): boolean {
  return uid === OPERATIONAL_APP_UID || uid === DRILL_APP_UID;
}

/**
 * Whether hookline made this application for itself: a reserved uid and the marker. The uid alone
 * is not enough: a store from before the uids were reserved may hold a customer's application
 * with one, which stays the customer's (ensureSystemApp refuses to adopt it).
 */
export function isSystemApp(app: Pick<Application, "uid" | "metadata">): boolean {
  return isReservedUid(app.uid) && app.metadata[SYSTEM_MARKER] === "true";
}

/** A customer's application holding a reserved uid; hookline will not take it over. */
function notOurs(app: Application): ConflictError {
  return new ConflictError(
    `application ${app.uid} (${app.id}) was not made by hookline (its metadata lacks ` +
      `"${SYSTEM_MARKER}": "true"), so hookline will not use it for its own events: give it ` +
      `another uid (PATCH /api/v1/app/${app.id} with {"uid": "…"}) and try again`,
  );
}

/**
 * The system application with this uid, created on first use. Throws ConflictError when an
 * application that is not hookline's holds the uid: adopting it would send hookline's events to
 * its endpoints.
 */
export async function ensureSystemApp(
  store: Store,
  clock: Clock,
  uid: string,
): Promise<Application> {
  const found = await store.findApplication(uid);
  if (found) {
    if (!isSystemApp(found)) throw notOurs(found);
    return found;
  }
  const now = clock.now();
  try {
    return await store.createApplication({
      id: newId("app", now),
      uid,
      name: NAMES[uid] ?? uid,
      rateLimit: null,
      metadata: { [SYSTEM_MARKER]: "true" },
      deliveryPolicy: null,
      createdAt: now,
      updatedAt: now,
    });
  } catch (err) {
    // Created at the same moment by another request or process: use theirs.
    if (!(err instanceof ConflictError)) throw err;
    const again = await store.findApplication(uid);
    if (!again) throw err;
    if (!isSystemApp(again)) throw notOurs(again);
    return again;
  }
}

/** Remembers which endpoints belong to hookline's own applications (bounded). */
export class SystemEndpoints {
  private readonly appOf = new Map<string, string | null>();
  /**
   * Whether each application seen is one of hookline's own, read by application rather than as
   * the list of system applications: another process sharing the store may create one (the first
   * drill, the first operational endpoint) after this one looked.
   */
  private readonly systemApp = new Map<string, string | null>();

  constructor(private readonly store: Store) {}

  /** Whether events about this endpoint must not become operational events. */
  async isSystem(endpointId: string): Promise<boolean> {
    return (await this.systemUidOf(endpointId)) !== null;
  }

  /** Whether this endpoint is one of the failure drills' (it fails on purpose). */
  async isDrill(endpointId: string): Promise<boolean> {
    return (await this.systemUidOf(endpointId)) === DRILL_APP_UID;
  }

  /** The uid of the endpoint's application if hookline made it for itself, else null. */
  private async systemUidOf(endpointId: string): Promise<string | null> {
    let appId = this.appOf.get(endpointId);
    if (appId === undefined) {
      appId = (await this.store.getEndpoint(endpointId))?.appId ?? null;
      if (this.appOf.size >= 10_000) this.appOf.clear();
      this.appOf.set(endpointId, appId);
    }
    if (appId === null) return null;
    let uid = this.systemApp.get(appId);
    if (uid === undefined) {
      const app = await this.store.findApplication(appId);
      uid = app !== null && isSystemApp(app) ? app.uid : null;
      if (this.systemApp.size >= 10_000) this.systemApp.clear();
      this.systemApp.set(appId, uid);
    }
    return uid;
  }

  /** Forget what is known (a system application was just created). */
  reset(): void {
    this.systemApp.clear();
  }
}
