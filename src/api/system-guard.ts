/**
 * hookline's own applications (operational webhooks, failure drill) through the ordinary API:
 * readable, so operators can debug their deliveries, but never changed there. Deleting the
 * operational one dropped every operator's subscription, a message posted to it forged an
 * operational event, and an endpoint added to it received hookline's events unregistered. Each has
 * its own routes for what may change; the refusal names them.
 */
import type { Application } from "../domain/types.js";
import { ConflictError, type FieldProblem } from "../errors.js";
import {
  DRILL_APP_UID,
  isReservedUid,
  isSystemApp,
  OPERATIONAL_APP_UID,
} from "../observability/system-apps.js";
import { throwIfProblems } from "./validation.js";

/** What to use instead, for each system application. */
const INSTEAD: Record<string, string> = {
  [OPERATIONAL_APP_UID]:
    "its endpoints are managed with /api/v1/operational-webhook/endpoint, and its messages are " +
    "hookline's own events",
  [DRILL_APP_UID]:
    "the failure drill (hookline drill, POST /api/v1/drill) sets up its endpoint and sends its " +
    "message itself",
};

/** Throws 409 when `app` is one of hookline's own: the ordinary API may only read it. */
export function refuseSystemApp(app: Application): void {
  if (!isSystemApp(app)) return;
  throw new ConflictError(
    `application ${app.uid} is hookline's own and cannot be changed through /api/v1/app: ` +
      `${INSTEAD[app.uid!] ?? "it is managed by hookline"}`,
  );
}

/**
 * Throws 409 when `app` is one of hookline's own and someone asks for a portal link or an
 * application token to it. Such a token could only read, but reading includes the operational
 * endpoints' signing secrets, and a portal link is made to be handed to a customer; operators read
 * these applications with their own token or in the console.
 */
export function refuseAccessToSystemApp(app: Application): void {
  if (!isSystemApp(app)) return;
  throw new ConflictError(
    `application ${app.uid} is hookline's own: portal links and application tokens are for ` +
      "customers' applications; read it with an admin token or in the operator console",
  );
}

/**
 * 422 when `uid` is reserved for one of hookline's applications and is not already `current`'s (a
 * customer's application holding one from before they were reserved keeps it until renamed).
 */
export function refuseReservedUid(
  uid: string | null | undefined,
  loc: FieldProblem["loc"],
  current: string | null = null,
): void {
  if (!isReservedUid(uid) || uid === current) return;
  const problem: FieldProblem = {
    loc,
    msg: `"${uid}" is reserved for hookline's own application; choose another uid`,
    type: "reserved_uid",
  };
  throwIfProblems([problem]);
}
