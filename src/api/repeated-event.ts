/**
 * A message posted with an `eventId` its application already used is answered with the message
 * that has it, and nothing new is written. That is right for a retry of the same post; a post
 * that says something else under the same `eventId` would be dropped behind a 200, and the Svix
 * client, which asks without content and fills in its own payload, would show the caller the
 * payload that was not taken. Such a post is refused instead (409), naming what differs.
 */
import { isDeepStrictEqual } from "node:util";
import type { Message } from "../domain/types.js";

export interface PostedContent {
  eventType: string;
  payload: Buffer;
  channels: string[] | null;
  tags: string[] | null;
}

/**
 * The fields in which `posted` says something other than `existing`, in the API's names. The
 * payload counts as the same when its JSON is (whitespace and key order aside); channels and tags
 * as sets. `deliverAt` is left out: a caller retrying may well compute it afresh.
 */
export function contentDifferences(existing: Message, posted: PostedContent): string[] {
  const differ: string[] = [];
  if (existing.eventType !== posted.eventType) differ.push("eventType");
  if (!samePayload(existing.payload, posted.payload)) differ.push("payload");
  if (!sameSet(existing.channels, posted.channels)) differ.push("channels");
  if (!sameSet(existing.tags, posted.tags)) differ.push("tags");
  return differ;
}

function samePayload(a: Buffer, b: Buffer): boolean {
  if (a.equals(b)) return true;
  try {
    return isDeepStrictEqual(JSON.parse(a.toString("utf8")), JSON.parse(b.toString("utf8")));
  } catch {
    return false;
  }
}

function sameSet(a: readonly string[] | null, b: readonly string[] | null): boolean {
  const x = new Set(a ?? []);
  const y = new Set(b ?? []);
  return x.size === y.size && [...x].every((v) => y.has(v));
}
