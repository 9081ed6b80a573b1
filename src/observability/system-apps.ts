/**
 * Applications hookline owns itself: the operational webhooks' application (its endpoints are the
 * operators' registered endpoints, its messages hookline's own events) and the failure drill's.
 * They are ordinary applications, so signing, the retry ladder and the dead-letter queue are the
 * same code; events about their endpoints never become operational events (no loops).
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

/** The system application with this uid, created on first use. */
export async function ensureSystemApp(
  store: Store,
  clock: Clock,
  uid: string,
): Promise<Application> {
  const found = await store.findApplication(uid);
  if (found) return found;
  const now = clock.now();
  try {
    return await store.createApplication({
      id: newId("app", now),
      uid,
      name: NAMES[uid] ?? uid,
      rateLimit: null,
      metadata: { "hookline.system": "true" },
      deliveryPolicy: null,
      createdAt: now,
      updatedAt: now,
    });
  } catch (err) {
    // Created at the same moment by another request or process: use theirs.
    if (!(err instanceof ConflictError)) throw err;
    const again = await store.findApplication(uid);
    if (!again) throw err;
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
  private readonly systemApp = new Map<string, boolean>();

  constructor(private readonly store: Store) {}

  /** Whether events about this endpoint must not become operational events. */
  async isSystem(endpointId: string): Promise<boolean> {
    let appId = this.appOf.get(endpointId);
    if (appId === undefined) {
      appId = (await this.store.getEndpoint(endpointId))?.appId ?? null;
      if (this.appOf.size >= 10_000) this.appOf.clear();
      this.appOf.set(endpointId, appId);
    }
    if (appId === null) return false;
    let system = this.systemApp.get(appId);
    if (system === undefined) {
      const uid = (await this.store.findApplication(appId))?.uid;
      system = uid === OPERATIONAL_APP_UID || uid === DRILL_APP_UID;
      if (this.systemApp.size >= 10_000) this.systemApp.clear();
      this.systemApp.set(appId, system);
    }
    return system;
  }

  /** Forget what is known (a system application was just created). */
  reset(): void {
    this.systemApp.clear();
  }
}
