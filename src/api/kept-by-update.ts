/**
 * What an update of an endpoint (a PUT, a PATCH) does not change: its custom headers, and a PUT's
 * signing secret. They have calls of their own; sent in an update's body they were dropped behind
 * a 2xx, so a deploy that put its receiver's new secret or credential there saw it taken, and its
 * receiver refused everything. The endpoint's own, sent back, is a read-back (a body built for the
 * create, sent again) and is taken; any other is refused, naming the call that changes it.
 */
import type { Endpoint } from "../domain/types.js";
import type { FieldProblem } from "../errors.js";
import { sendsOtherHeaders } from "./probe-sooner.js";

/** Where the endpoint an update names is changed otherwise, for its 422 to say. */
export interface OwnCalls {
  /** The endpoint's path as the caller named it, e.g. `/api/v1/app/acme/endpoint/main`. */
  path: string;
  /** Whether its headers may also be patched (`PATCH …/headers`). */
  patchHeaders: boolean;
}

/**
 * Problems with the `secret` (unless the update takes a secret, as a PATCH does) and `headers`
 * an update sends for `ep`: none when each is left out, null, or what `ep` has (a secret with or
 * without its `whsec_` prefix, parsed already; header names in any case, as they are sent).
 */
export function notKeptProblems(
  ep: Endpoint,
  body: { secret?: string | null; headers?: Readonly<Record<string, string>> | null },
  calls: OwnCalls,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (body.secret != null && body.secret !== ep.secrets.current) {
    problems.push({
      loc: ["body", "secret"],
      msg:
        "is not the endpoint's signing secret, which an update does not change: rotate it with " +
        `POST ${calls.path}/secret/rotate (rotateSecret), or send the one it has, or none`,
      type: "value_error",
    });
  }
  if (body.headers != null && sendsOtherHeaders(ep.headers, body.headers)) {
    const patch = calls.patchHeaders ? ` or PATCH ${calls.path}/headers (patchHeaders)` : "";
    problems.push({
      loc: ["body", "headers"],
      msg:
        "are not the endpoint's custom headers, which an update does not change: set them " +
        `with PUT ${calls.path}/headers (updateHeaders)${patch}, or send the ones it has, or none`,
      type: "value_error",
    });
  }
  return problems;
}
