/**
 * A window's edge named finer than a millisecond, rounded to the store's whole milliseconds, keeps
 * exactly the milliseconds the window named holds, whichever edge it is, at any offset and any
 * number of digits; a "not before" time is the first stored millisecond at or after it; and which
 * of two named times is later is judged to their last digit.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import {
  isLater,
  msBetween,
  msNotBefore,
  msSinceUntil,
  namedTime,
  type NamedTime,
} from "../../src/api/named-time.js";

const DIGITS = 12;
const SCALE = 10n ** BigInt(DIGITS);

/** A time named with up to nine digits past the millisecond, in UTC or at an offset. */
interface Named {
  iso: string;
  /** The whole millisecond it falls in. */
  ms: number;
  /** The instant exactly, in 10^-12 ms since the epoch. */
  exact: bigint;
}

const named: fc.Arbitrary<Named> = fc
  .record({
    ms: fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }),
    finer: fc.stringMatching(/^\d{0,9}$/),
    offsetMinutes: fc.integer({ min: -14 * 60, max: 14 * 60 }),
  })
  .map(({ ms, finer, offsetMinutes }) => {
    // The clock time at the offset, with the offset written as ±HH:MM (or Z at none).
    const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, -1);
    const sign = offsetMinutes < 0 ? "-" : "+";
    const abs = Math.abs(offsetMinutes);
    const zone =
      offsetMinutes === 0
        ? "Z"
        : `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
    const exact = BigInt(ms) * SCALE + BigInt(finer.padEnd(DIGITS, "0"));
    return { iso: `${local}${finer}${zone}`, ms, exact };
  });

/** A stored time (whole milliseconds) in or next to the one `t` falls in. */
const storedNear = (t: Named) => fc.integer({ min: -2, max: 2 }).map((d) => t.ms + d);

const exactOf = (t: NamedTime) => BigInt(t.ms) * SCALE + BigInt(t.finer.padEnd(DIGITS, "0"));

it("reads the instant named, to its last digit", () => {
  fc.assert(
    fc.property(named, (t) => {
      expect(exactOf(namedTime(t.iso))).toBe(t.exact);
    }),
  );
});

it("keeps exactly the stored milliseconds after `after` and before `before`", () => {
  fc.assert(
    fc.property(
      named.chain((t) => fc.tuple(fc.constant(t), storedNear(t))),
      ([t, stored]) => {
        const s = BigInt(stored) * SCALE;
        const { after, before } = msBetween({ after: namedTime(t.iso), before: namedTime(t.iso) });
        expect(stored > after!).toBe(s > t.exact);
        expect(stored < before!).toBe(s < t.exact);
      },
    ),
  );
});

it("keeps exactly the stored milliseconds from `since` on and before `until`", () => {
  fc.assert(
    fc.property(
      named.chain((t) => fc.tuple(fc.constant(t), storedNear(t))),
      ([t, stored]) => {
        const s = BigInt(stored) * SCALE;
        const { since, until } = msSinceUntil({ since: namedTime(t.iso), until: namedTime(t.iso) });
        expect(stored >= since!).toBe(s >= t.exact);
        expect(stored < until!).toBe(s < t.exact);
      },
    ),
  );
});

it("takes a not-before time as the first stored millisecond at or after it", () => {
  fc.assert(
    fc.property(
      named.chain((t) => fc.tuple(fc.constant(t), storedNear(t))),
      ([t, stored]) => {
        expect(stored >= msNotBefore(t.iso)).toBe(BigInt(stored) * SCALE >= t.exact);
      },
    ),
  );
  // Fewer than three digits past the seconds, or none, name a whole millisecond.
  const second = fc.integer({ min: Date.UTC(1900, 0, 1) / 1000, max: Date.UTC(2200, 0, 1) / 1000 });
  fc.assert(
    fc.property(second, fc.stringMatching(/^\d{0,2}$/), (s, digits) => {
      const clock = new Date(s * 1000).toISOString().slice(0, 19);
      const iso = digits ? `${clock}.${digits}Z` : `${clock}Z`;
      expect(msNotBefore(iso)).toBe(s * 1000 + Number(digits.padEnd(3, "0")));
    }),
  );
});

it("judges which of two named times is later to their last digit", () => {
  // Two times in one millisecond most of the time, where the digits past it decide.
  const pair = named.chain((a) =>
    fc.tuple(
      fc.constant(a),
      fc.oneof(
        named,
        fc.stringMatching(/^\d{0,9}$/).map((finer) => {
          const iso = a.iso.replace(/\.(\d{3})\d*/, `.$1${finer}`);
          const exact = BigInt(a.ms) * SCALE + BigInt(finer.padEnd(DIGITS, "0"));
          return { iso, ms: a.ms, exact };
        }),
      ),
    ),
  );
  fc.assert(
    fc.property(pair, ([a, b]) => {
      expect(isLater(namedTime(a.iso), namedTime(b.iso))).toBe(a.exact > b.exact);
      expect(isLater(namedTime(b.iso), namedTime(a.iso))).toBe(b.exact > a.exact);
    }),
  );
});
