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
      await t.store.finishIdempotent("app_1:POST /msg", "key-1", 202, body);
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
      await t.store.finishIdempotent("app_1:POST /msg", "key-1", 202, "{}");
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

    it("a key is forgotten after its time to live", async () => {
      await t.store.beginIdempotent(begin());
      await t.store.finishIdempotent("app_1:POST /msg", "key-1", 202, "{}");
      const later = begin({ fingerprint: "sha256:bbb", now: T0 + TTL });
      expect(await t.store.beginIdempotent(later)).toEqual({ kind: "new" });
    });

    it("an abandoned request lets the next one start anew", async () => {
      await t.store.beginIdempotent(begin());
      await t.store.abandonIdempotent("app_1:POST /msg", "key-1");
      expect(await t.store.beginIdempotent(begin({ now: T0 + 1 }))).toEqual({ kind: "new" });
    });

    it("of requests with one key at once, exactly one is new", async () => {
      const states = await Promise.all([1, 2, 3, 4].map(() => t.store.beginIdempotent(begin())));
      expect(states.filter((s) => s.kind === "new")).toHaveLength(1);
      expect(states.filter((s) => s.kind === "in-progress")).toHaveLength(3);
    });

    it("keys of different scopes do not meet", async () => {
      await t.store.beginIdempotent(begin());
      await t.store.finishIdempotent("app_1:POST /msg", "key-1", 202, "{}");
      expect(await t.store.beginIdempotent(begin({ scope: "app_2:POST /msg" }))).toEqual({
        kind: "new",
      });
    });
  });
}
