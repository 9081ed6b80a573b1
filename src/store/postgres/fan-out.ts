import { filteredOut } from "../../domain/fan-out.js";
import type { NewMessage } from "../port.js";
import type { Row } from "./database.js";

/**
 * Whether a fan-out target (a `fanOutTargets` row, its `json` columns parsed) wants the message
 * (see domain/fan-out.ts).
 */
export function matches(ep: Row, msg: NewMessage): boolean {
  if (msg.onlyEndpointId !== undefined && ep.id !== msg.onlyEndpointId) return false;
  const types = ep.filter_types as string[] | null;
  return filteredOut(types, ep.channels as string[] | null, msg) === null;
}
