import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TokenBucket } from "../src/token-bucket.js";

describe("the replay rate's token bucket", () => {
  it("gives the first token at once, then one per 1/rate seconds, saying how long to wait", () => {
    let now = 0;
    const bucket = new TokenBucket(4, () => now);
    expect(bucket.take()).toBe(0);
    expect(bucket.take()).toBe(250);
    now += 100;
    expect(bucket.take()).toBe(150);
    now += 150;
    expect(bucket.take()).toBe(0);
    expect(bucket.take()).toBe(250);
  });

  it("saves up no more than its burst while idle", () => {
    let now = 0;
    const bucket = new TokenBucket(10, () => now, 3);
    now += 60_000;
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([0, 0, 0]);
    expect(bucket.take()).toBe(100);
  });

  it("never hands out more than burst + rate × elapsed tokens, whatever the calls", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 500, noNaN: true }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 2_000 }), { maxLength: 200 }),
        (rate, burst, steps) => {
          let now = 0;
          const bucket = new TokenBucket(rate, () => now, burst);
          let taken = 0;
          for (const step of steps) {
            now += step;
            if (bucket.take() === 0) taken++;
            expect(taken).toBeLessThanOrEqual(burst + (now * rate) / 1000 + 1e-9);
          }
        },
      ),
    );
  });

  it("refuses a rate that is not positive", () => {
    expect(() => new TokenBucket(0, () => 0)).toThrow(RangeError);
  });
});
