/**
 * Which messages an endpoint takes: the one rule both stores' fan-out and the API's checks apply.
 */

/**
 * Why an endpoint's filters turn the message away, or null when it takes it: its event-type
 * filter (`types`), if any, must name the message's type, and its channel filter (`channels`), if
 * any, must share a channel with the message (a message without channels shares none). A null or
 * empty filter takes everything.
 */
export function filteredOut(
  types: readonly string[] | null,
  channels: readonly string[] | null,
  msg: { eventType: string; channels: readonly string[] | null },
): "type" | "channel" | null {
  if (types && types.length && !types.includes(msg.eventType)) return "type";
  if (channels && channels.length) {
    if (!msg.channels || !msg.channels.some((c) => channels.includes(c))) return "channel";
  }
  return null;
}
