import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MessageIn } from "../../src/api/schemas/message.js";
import { quickMessageIn } from "../../src/api/schemas/message-quick.js";

// A valid message, then at most one field replaced by a value at or past a rule's edge, so both
// answers are exercised often and every rule's edge is met.
const nested = (depth: number): unknown => (depth === 0 ? {} : { a: nested(depth - 1) });
const validName = fc.constantFrom("invoice.paid", "a", "x".repeat(256));
const badName = fc.constantFrom("x".repeat(257), "", "has space", "é", ".", "..", 5, null);
const list = (items: string[], max: number) =>
  fc.oneof(fc.constant(null), fc.array(fc.constantFrom(...items), { maxLength: max }));
const channels = ["eu", "a:b", "x".repeat(128)];
const tags = ["eu", "a/b", "t#1", "x".repeat(128)];
const badList = (items: string[], max: number) =>
  fc.oneof(
    fc.array(fc.constantFrom(...items), { minLength: max + 1, maxLength: max + 2 }),
    fc.constantFrom(["ok", ""], ["x".repeat(129)], ["a b"], [7], "eu", {}),
    fc.constant([items.includes("a/b") ? "a:b" : "a/b"]),
  );
const validPayload = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  fc.constant(nested(63)),
);
const valid = fc.record(
  {
    eventType: validName,
    eventId: fc.oneof(fc.constant(null), validName),
    payload: validPayload,
    channels: list(channels, 10),
    tags: list(tags, 5),
  },
  { requiredKeys: ["eventType", "payload"] },
);
const edges: Record<string, fc.Arbitrary<unknown>> = {
  eventType: badName,
  eventId: fc.constantFrom(
    "",
    "x".repeat(257),
    12,
    `msg_${"0".repeat(26)}`,
    `msg_${"0".repeat(27)}`,
    ".",
    "..",
  ),
  payload: fc.constantFrom(null, [], "text", 1, nested(64)),
  channels: badList(channels, 10),
  tags: badList(tags, 5),
  application: fc.constantFrom(null, { name: "x" }),
  deliverAt: fc.constantFrom(null, "2030-01-01T00:00:00Z", "soon"),
  unknownField: fc.constant(1),
};
const message = fc
  .tuple(valid, fc.option(fc.constantFrom(...Object.keys(edges))), fc.boolean())
  .chain(([base, field, drop]) =>
    field === null
      ? fc.constant<Record<string, unknown>>(base)
      : drop
        ? fc.constant<Record<string, unknown>>(omit(base, field))
        : edges[field]!.map((v): Record<string, unknown> => ({ ...base, [field]: v })),
  );

function omit(o: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...o };
  delete copy[key];
  return copy;
}

const QUICK = ["eventType", "eventId", "payload", "channels", "tags"];

describe("the hand-written check of a common MessageIn", () => {
  it("answers nothing or exactly what the MessageIn schema answers", () => {
    fc.assert(
      fc.property(message, (input) => {
        const quick = quickMessageIn(input);
        const schema = MessageIn.safeParse(input);
        if (quick === undefined) {
          // Declining is always safe; it must not happen to the plain valid messages, though.
          const extra = Object.keys(input).some((k) => !QUICK.includes(k));
          if (schema.success && !extra) expect.fail(`declined ${JSON.stringify(input)}`);
          return;
        }
        expect(schema.success).toBe(true);
        expect(quick).toStrictEqual(schema.data);
      }),
      { numRuns: 5_000 },
    );
  });

  it("takes the messages clients usually post", () => {
    const common = [
      { eventType: "invoice.paid", payload: { id: 1 } },
      { eventType: "invoice.paid", eventId: "evt_1", payload: {}, channels: ["eu"], tags: null },
      { eventType: "a.b", eventId: null, payload: { nested: { list: [1, "two", null] } } },
    ];
    for (const input of common) expect(quickMessageIn(input)).toStrictEqual(MessageIn.parse(input));
  });

  it("leaves an event type of dots to the schema, which refuses it", () => {
    for (const eventType of [".", ".."]) {
      expect(quickMessageIn({ eventType, payload: {} })).toBeUndefined();
      expect(MessageIn.safeParse({ eventType, payload: {} }).success).toBe(false);
    }
  });

  it("leaves an eventId of dots to the schema, which refuses it", () => {
    // GET …/msg/{eventId} could never reach such a message.
    for (const eventId of [".", ".."]) {
      expect(quickMessageIn({ eventType: "a", eventId, payload: {} })).toBeUndefined();
      expect(MessageIn.safeParse({ eventType: "a", eventId, payload: {} }).success).toBe(false);
    }
  });
});
