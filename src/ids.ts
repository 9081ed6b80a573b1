import { randomFillSync } from "node:crypto";

// Crockford base32: sortable as text, no ambiguous letters.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Prefixes of hookline's ids, so a log line tells what an id names. */
export type IdPrefix =
  | "app"
  | "ep"
  | "msg"
  | "dlv"
  | "atmpt"
  | "dlq"
  | "evt"
  | "tok"
  | "job"
  | "rnr"
  | "wkr"
  | "alrt"
  | "drill";

let lastMs = 0;
let lastRandom: Uint8Array = new Uint8Array(10);
let lastTime = encodeTime(0);

// Random bytes are drawn 4 KiB at a time: a call to the generator per id costs more than the id.
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function freshRandom(): Uint8Array {
  if (poolAt + 10 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += 10;
  return pool.slice(poolAt - 10, poolAt);
}

/**
 * A prefixed, time-sortable id: 10 base32 characters of milliseconds then 16 of randomness.
 * Within one millisecond the random part is incremented so ids made in order also sort in order.
 */
export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  if (nowMs <= lastMs) {
    increment(lastRandom);
  } else {
    lastMs = nowMs;
    lastTime = encodeTime(nowMs);
    lastRandom = freshRandom();
  }
  return `${prefix}_${lastTime}${encodeRandom(lastRandom)}`;
}

function increment(bytes: Uint8Array): void {
  for (let i = bytes.length - 1; i >= 0; i--) {
    const v = bytes[i]!;
    if (v < 255) {
      bytes[i] = v + 1;
      return;
    }
    bytes[i] = 0;
  }
}

function encodeTime(ms: number): string {
  let out = "";
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32]! + out;
    t = Math.floor(t / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits -> 16 characters of 5 bits.
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const b of bytes) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31]!;
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

/** True when `value` looks like an id with the given prefix (used to tell ids from uids). */
export function hasPrefix(value: string, prefix: IdPrefix): boolean {
  return value.startsWith(`${prefix}_`) && value.length === prefix.length + 27;
}

/**
 * The smallest id `newId` can make with this prefix at or after `ms`. An id's time is never
 * earlier than the time it was made with, so the rows made at or after `ms` (an attempt's `at`, a
 * message's creation) all have ids from this one on: a read of recent rows can walk an index on
 * ids from here, rather than all of history, and keep its time condition for exactness.
 */
export function firstIdAt(prefix: IdPrefix, ms: number): string {
  const time = Math.min(Math.max(Math.floor(ms), 0), 32 ** 10 - 1);
  return `${prefix}_${encodeTime(time)}${"0".repeat(16)}`;
}
