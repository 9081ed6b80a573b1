import type { NewMessage } from "../port.js";
import type { Row } from "./rows.js";

/**
 * Whether a fan-out target (a `fanOutTargets` row) wants the message: its event-type filter, if
 * any, names the message's type, and its channel filter, if any, shares a channel with it.
 */
export function matches(ep: Row, msg: NewMessage): boolean {
  if (msg.onlyEndpointId !== undefined && ep.id !== msg.onlyEndpointId) return false;
  const types = ep.filter_types == null ? null : (JSON.parse(String(ep.filter_types)) as string[]);
  if (types && types.length && !types.includes(msg.eventType)) return false;
  const channels = ep.channels == null ? null : (JSON.parse(String(ep.channels)) as string[]);
  if (channels && channels.length) {
    if (!msg.channels || !msg.channels.some((c) => channels.includes(c))) return false;
  }
  return true;
}
