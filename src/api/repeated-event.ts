/**
 * A message posted with an `eventId` its application already used is answered with the message
 * that has it, and nothing new is written. That is right for a retry of the same post; a post
 * that says something else under the same `eventId` would be dropped behind a 200, and the Svix
 * client, which asks without content and fills in its own payload, would show the caller the
 * payload that was not taken. Such a post is refused instead (409), naming what differs.
 */
import { isDeepStrictEqual } from "node:util";
import type { Message } from "../domain/types.js";
import { MAY_BE_INEXACT, numbersExact } from "./json-numbers.js";

export interface PostedContent {
  eventType: string;
  payload: Buffer;
  channels: string[] | null;
  tags: string[] | null;
}

/**
 * The fields in which `posted` says something other than `existing`, in the API's names. The
 * payload counts as the same when its JSON is (whitespace and key order aside, numbers by their
 * exact value); channels and tags as sets. `deliverAt` is left out: a caller retrying may well
 * compute it afresh.
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
    const [x, y] = [a.toString("utf8"), b.toString("utf8")];
    // Payloads that differ as doubles differ exactly too; and where no number can lose digits
    // as a double, equal doubles are equal values. Only the rest pays for the exact reading,
    // which costs about ten times JSON.parse (half a second for a 1 MiB payload of numbers).
    if (!isDeepStrictEqual(JSON.parse(x), JSON.parse(y))) return false;
    if (!MAY_BE_INEXACT.test(x) && !MAY_BE_INEXACT.test(y)) return true;
    return isDeepStrictEqual(JSON.parse(numbersExact(x)), JSON.parse(numbersExact(y)));
  } catch {
    return false;
  }
}

function sameSet(a: readonly string[] | null, b: readonly string[] | null): boolean {
  const x = new Set(a ?? []);
  const y = new Set(b ?? []);
  return x.size === y.size && [...x].every((v) => y.has(v));
}
