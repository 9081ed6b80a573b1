/** Output helpers shared by every resource. */
import { z } from "zod";

/** Milliseconds since the epoch as ISO-8601, the form Svix uses for every timestamp. */
export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A timestamp in an answer, for the OpenAPI document. */
export const Timestamp = z.iso.datetime();

/** The list envelope of every Svix list call, for the OpenAPI document. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    iterator: z.string().nullable(),
    prevIterator: z.string().nullable(),
    done: z.boolean(),
  });
}

/** A page as the Svix list calls answer it. */
export function listAnswer<T>(page: { data: T[]; iterator: string | null; done: boolean }) {
  return { data: page.data, iterator: page.iterator, prevIterator: null, done: page.done };
}

/** An error answer, for the OpenAPI document. */
export const HttpError = z.object({ code: z.string(), detail: z.string() });

/** A 422 answer: one entry per bad field, as Svix's HTTPValidationError. */
export const HttpValidationError = z.object({
  code: z.literal("validation"),
  detail: z.array(
    z.object({ loc: z.array(z.union([z.string(), z.int()])), msg: z.string(), type: z.string() }),
  ),
});

/** A hookline addition to a Svix schema, marked for the OpenAPI document. */
export function extension<T extends z.ZodType>(schema: T): T {
  return schema.meta({ "x-hookline-extension": true });
}
