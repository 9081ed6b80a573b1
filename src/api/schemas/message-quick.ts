/**
 * The common MessageIn, checked by hand. Every post is validated, and zod's generic walk costs
 * more than the rest of reading the request; most posts carry only an event type, a payload and
 * perhaps an eventId, channels or tags, which take a few comparisons to check. Anything else — a
 * problem to name, or a field such as `application` or `deliverAt` — is left to the MessageIn
 * schema, which stays the definition: for every input, `quickMessageIn` answers either undefined
 * or exactly what MessageIn would (a property test holds it to that).
 */
import { CHANNEL_PATTERN } from "./endpoint.js";
import { isMessageIdShaped, TAG_PATTERN, type MessageInput } from "./message.js";
import { isDotSegment, jsonDepth, MAX_JSON_DEPTH, NAME_PATTERN } from "../validation.js";

const QUICK_FIELDS = new Set(["eventType", "eventId", "payload", "channels", "tags"]);

/** MessageIn's output for a plainly valid common message; undefined: ask MessageIn. */
export function quickMessageIn(input: unknown): MessageInput | undefined {
  if (!isObject(input)) return undefined;
  for (const key of Object.keys(input)) if (!QUICK_FIELDS.has(key)) return undefined;
  const { eventType, eventId, payload, channels, tags } = input;
  if (!isString(eventType, 256) || !NAME_PATTERN.test(eventType) || isDotSegment(eventType)) {
    return undefined;
  }
  if (!isObject(payload) || jsonDepth(payload) > MAX_JSON_DEPTH) return undefined;
  const out: MessageInput = { eventType, payload };
  if ("eventId" in input) {
    if (
      eventId !== null &&
      (!isString(eventId, 256) ||
        eventId.length === 0 ||
        isMessageIdShaped(eventId) ||
        isDotSegment(eventId))
    ) {
      return undefined;
    }
    out.eventId = eventId;
  }
  if ("channels" in input) {
    const list = stringsOrNull(channels, 10, CHANNEL_PATTERN);
    if (list === undefined) return undefined;
    out.channels = list;
  }
  if ("tags" in input) {
    const list = stringsOrNull(tags, 5, TAG_PATTERN);
    if (list === undefined) return undefined;
    out.tags = list;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isString(v: unknown, max: number): v is string {
  return typeof v === "string" && v.length <= max;
}

/** Null, or a copy of an array of at most `max` names of at most 128 characters each. */
function stringsOrNull(v: unknown, max: number, pattern: RegExp): string[] | null | undefined {
  if (v === null) return null;
  if (!Array.isArray(v) || v.length > max) return undefined;
  for (const s of v) if (!isString(s, 128) || !pattern.test(s)) return undefined;
  return [...(v as string[])];
}
