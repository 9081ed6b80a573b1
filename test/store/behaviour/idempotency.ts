/** Idempotency keys: one request per key runs; repeats wait, replay, or are refused. */
import { describe, expect, it } from "vitest";
import type { IdempotencyBegin } from "../../../src/store/port.js";
import { HOUR, SECOND, T0, type StoreUnderTest } from "./fixtures.js";

const LOCK = 30 * SECOND;
const TTL = 24 * HOUR;

function begin(overrides: Partial<IdempotencyBegin> = {}): IdempotencyBegin {
  return {
    scope: "app_1:POST /msg",
    key: "key-1",
    owner: "first",
    fingerprint: "sha256:aaa",
    now: T0,
    lockMs: LOCK,
    ttlMs: TTL,
    ...overrides,
  };
}

export function idempotencyBehaviour(t: StoreUnderTest): void {
  describe("idempotency keys", () => {
    it("a first request with a key is new", async () => {
      expect(await t.store.beginIdempotent(begin())).toEqual({ kind: "new" });
    });

    it("a repeat while the first is still running is in progress", async () => {
      await t.store.beginIdempotent(begin());
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK - 1 }))).toEqual({
        kind: "in-progress",
      });
    });

    it("a repeat after the first finished replays its status and body", async () => {
      await t.store.beginIdempotent(begin());
      const body = '{"id":"msg_1","note":"héllo ✓"}';
      await t.store.finishIdempotent(begin(), 202, body);
      // Well past the lock: a finished request is replayed for as long as the key lives.
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK * 10 }))).toEqual({
        kind: "replay",
        status: 202,
        body,
      });
    });

    it("a repeat with a different request is a mismatch, running or finished", async () => {
      await t.store.beginIdempotent(begin());
      const other = begin({ fingerprint: "sha256:bbb", now: T0 + SECOND });
      expect(await t.store.beginIdempotent(other)).toEqual({ kind: "mismatch" });
      await t.store.finishIdempotent(begin(), 202, "{}");
      expect(await t.store.beginIdempotent(other)).toEqual({ kind: "mismatch" });
    });

    it("a request left unfinished past its lock lets the next one start anew", async () => {
      await t.store.beginIdempotent(begin());
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK }))).toEqual({ kind: "new" });
      // The new start holds the lock in its turn.
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK + 1 }))).toEqual({
        kind: "in-progress",
      });
    });

    it("a request past its lock keeps no answer once a repeat holds the key", async () => {
      await t.store.beginIdempotent(begin());
      const repeat = begin({ owner: "repeat", now: T0 + LOCK });
      expect(await t.store.beginIdempotent(repeat)).toEqual({ kind: "new" });
      expect(await t.store.finishIdempotent(begin(), 202, '{"id":"msg_late"}')).toBe(false);
      expect(await t.store.finishIdempotent(repeat, 202, '{"id":"msg_holder"}')).toBe(true);
      expect(await t.store.finishIdempotent(begin(), 202, '{"id":"msg_late"}')).toBe(false);
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK + 1 }))).toEqual({
        kind: "replay",
        status: 202,
        body: '{"id":"msg_holder"}',
      });
    });

    it("a request past its lock frees nothing once a repeat holds the key", async () => {
      await t.store.beginIdempotent(begin());
      const repeat = begin({ owner: "repeat", now: T0 + LOCK });
      await t.store.beginIdempotent(repeat);
      expect(await t.store.abandonIdempotent(begin())).toBe(false);
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK + 1 }))).toEqual({
        kind: "in-progress",
      });
      expect(await t.store.abandonIdempotent(repeat)).toBe(true);
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK + 2 }))).toEqual({
        kind: "new",
      });
    });

    it("a request past its lock that nobody took the key from still keeps its answer", async () => {
      await t.store.beginIdempotent(begin());
      expect(await t.store.finishIdempotent(begin(), 201, "{}")).toBe(true);
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK * 2 }))).toEqual({
        kind: "replay",
        status: 201,
        body: "{}",
      });
    });

    it("a key is forgotten after its time to live", async () => {
      await t.store.beginIdempotent(begin());
      await t.store.finishIdempotent(begin(), 202, "{}");
      const later = begin({ fingerprint: "sha256:bbb", now: T0 + TTL });
      expect(await t.store.beginIdempotent(later)).toEqual({ kind: "new" });
    });

    it("an abandoned request lets the next one start anew", async () => {
      await t.store.beginIdempotent(begin());
      await t.store.abandonIdempotent(begin());
      expect(await t.store.beginIdempotent(begin({ now: T0 + 1 }))).toEqual({ kind: "new" });
    });

    it("of requests with one key at once, exactly one is new", async () => {
      const states = await Promise.all([1, 2, 3, 4].map(() => t.store.beginIdempotent(begin())));
      expect(states.filter((s) => s.kind === "new")).toHaveLength(1);
      expect(states.filter((s) => s.kind === "in-progress")).toHaveLength(3);
    });

    it("keys of different scopes do not meet", async () => {
      await t.store.beginIdempotent(begin());
      await t.store.finishIdempotent(begin(), 202, "{}");
      expect(await t.store.beginIdempotent(begin({ scope: "app_2:POST /msg" }))).toEqual({
        kind: "new",
      });
    });
  });
}
