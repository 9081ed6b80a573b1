/**
 * Svix MessageIn and MessageOut. A message's payload is answered with the exact bytes stored:
 * the JSON around it is built here and the bytes are spliced in, never parsed and re-stringified.
 */
import { z } from "zod";
import type { Message } from "../../domain/types.js";
import { hasPrefix } from "../../ids.js";
import { DATE_TIME_ERROR, EventTypeName, isDotSegment, JsonObject } from "../validation.js";
import { ApplicationIn } from "./application.js";
import { Timestamp, iso } from "./common.js";
import { Channel } from "./endpoint.js";

/** What a message tag may contain. */
export const TAG_PATTERN = /^[a-zA-Z0-9\-_./\\#]+$/;

/** A message tag. */
export const Tag = z
  .string()
  .max(128)
  .regex(TAG_PATTERN, "may contain only letters, digits and -_./\\#");

const Payload = JsonObject.meta({ type: "object", description: "The event, any JSON object" });

/**
 * A message is found by id or eventId, the id first: an eventId shaped as a message id could be
 * another message's, and the message holding it could never be reached by it.
 */
export const isMessageIdShaped = (eventId: string): boolean => hasPrefix(eventId, "msg");

const EventId = z
  .string()
  .min(1)
  .max(256)
  .refine((s) => !isMessageIdShaped(s), {
    message:
      "must not be shaped as a message id ('msg_' and 26 characters), which it would be taken for",
    params: { type: "value_error" },
  })
  // Fetched by it, GET …/msg/{eventId}: no URL path can name these.
  .refine((s) => !isDotSegment(s), "must not be '.' or '..', which no URL path can name");

/** Svix MessageIn. */
export const MessageIn = z.object({
  eventType: EventTypeName,
  eventId: EventId.nullable().optional(),
  payload: Payload,
  channels: z.array(Channel).max(10).nullable().optional(),
  tags: z.array(Tag).max(5).nullable().optional(),
  application: ApplicationIn.nullable().optional(),
  deliverAt: z.iso.datetime({ offset: true, error: DATE_TIME_ERROR }).nullable().optional(),
  // Accepted for compatibility; hookline keeps every message for HOOKLINE_RETENTION_DAYS.
  payloadRetentionPeriod: z.int().min(1).nullable().optional(),
  payloadRetentionHours: z.int().min(1).nullable().optional(),
  transformationsParams: z
    .null({ error: "transformations (and raw payloads) are not supported by hookline" })
    .optional(),
});

export type MessageInput = z.output<typeof MessageIn>;

/** Svix MessagePrecheckIn: the parts of a message that choose its endpoints. */
export const MessagePrecheckIn = MessageIn.pick({ eventType: true, channels: true });
export const MessagePrecheckOut = z.object({ active: z.boolean() });

export const MessageOut = z.object({
  id: z.string(),
  eventType: z.string(),
  eventId: z.string().nullable(),
  channels: z.array(z.string()).nullable(),
  tags: z.array(z.string()).nullable(),
  timestamp: Timestamp,
  deliverAt: Timestamp.nullable(),
  payload: Payload,
});

/** MessageOut as JSON text; without content the payload is `{}`, as Svix answers. */
export function messageJson(m: Message, withContent: boolean): string {
  const head = JSON.stringify({
    id: m.id,
    eventType: m.eventType,
    eventId: m.eventId,
    channels: m.channels,
    tags: m.tags,
    timestamp: iso(m.createdAt),
    deliverAt: iso(m.deliverAt),
  });
  const payload = withContent ? m.payload.toString("utf8") : "{}";
  return `${head.slice(0, -1)},"payload":${payload}}`;
}

/**
 * The payload bytes a page of messages with content holds at most, past its first message: a
 * page of 250 payloads of up to HOOKLINE_MAX_BODY_BYTES each would otherwise be built whole in
 * memory, holding up every other request meanwhile. A page cut short is not `done`; its iterator
 * goes on from its last message, as any client following `iterator` until `done` does.
 */
export const PAGE_PAYLOAD_BYTES = 4 * 1024 * 1024;

/** A list envelope around items that are already JSON text. */
export function listJson(
  items: readonly string[],
  page: { iterator: string | null; done: boolean },
): string {
  const tail = JSON.stringify({ iterator: page.iterator, prevIterator: null, done: page.done });
  return `{"data":[${items.join(",")}],${tail.slice(1)}`;
}
