/**
 * A PUT of an application or an endpoint that names nothing creates it, as the Svix server's
 * does: the same call both makes a customer's record and keeps it up to date.
 */
import { ConflictError } from "../errors.js";
import { hasPrefix, type IdPrefix } from "../ids.js";
import type { Answer } from "./route.js";
import { Uid } from "./validation.js";

/**
 * The uid a PUT gives its record: the body's; without one, the path's segment, unless it is shaped
 * as an id of this kind (`app_…`, `ep_…`) or is not a valid uid. hookline's own rule: Svix keeps
 * nothing of the path, so the same PUT to `/app/customer-42` sent again made another application,
 * and one updating by uid without a uid in its body dropped the uid it was found by.
 */
export function uidOfPut(
  segment: string,
  prefix: IdPrefix,
  bodyUid: string | null | undefined,
): string | null {
  if (bodyUid) return bodyUid;
  if (hasPrefix(segment, prefix)) return null;
  return Uid.safeParse(segment).success ? segment : null;
}

/**
 * Runs `update` when the path names a record, else `create` (which answers 201). A create that
 * loses a race to another for the same uid (the store's ConflictError, and the path now names a
 * record) updates the winner's record instead, as if it had come a moment later; a uid taken
 * by a record the path does not name is the create's 409.
 */
export async function updateOrCreate(
  exists: () => Promise<boolean>,
  update: () => Promise<Answer>,
  create: () => Promise<Answer>,
): Promise<Answer> {
  if (await exists()) return update();
  try {
    return await create();
  } catch (err) {
    if (err instanceof ConflictError && (await exists())) return update();
    throw err;
  }
}
