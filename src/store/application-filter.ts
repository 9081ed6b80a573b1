/** The application list's filters by endpoints, the same SQL in both dialects. */
import type { ApplicationFilter } from "./port.js";

/**
 * The conditions an ApplicationFilter puts on an `applications` row; `no` is the dialect's false
 * for `endpoints.disabled`. Each is an index probe on endpoints_by_app per application listed.
 */
export function applicationConditions(f: ApplicationFilter, no: string): string[] {
  const any = "EXISTS (SELECT 1 FROM endpoints e WHERE e.app_id = applications.id)";
  const where: string[] = [];
  if (f.excludeWithNoEndpoints) where.push(any);
  if (f.excludeWithOnlyDisabledEndpoints) {
    where.push(
      `(NOT ${any} OR EXISTS (SELECT 1 FROM endpoints e
        WHERE e.app_id = applications.id AND e.disabled = ${no}))`,
    );
  }
  return where;
}
