/**
 * The flat wire format between the main thread and a sender thread: what is packed comes back
 * the same after a real structured clone, however many headers a request has and whatever a
 * result leaves empty.
 */
import { describe, expect, it } from "vitest";
import type { SendRequest, SendResult } from "../../src/engine/sender.js";
import {
  packRequest,
  packResult,
  resultCount,
  unpackRequests,
  unpackResults,
  type WireRequests,
  type WireResults,
} from "../../src/engine/thread-wire.js";

describe("the sender threads' wire format", () => {
  it("requests cross with their headers and only their own bytes", () => {
    // A body that is a view into a larger buffer, as Buffers from a pool are.
    const pool = Buffer.from('xxxx{"a":1}yyyy');
    const requests: SendRequest[] = [
      { url: "http://127.0.0.1:1/a", headers: {}, body: pool.subarray(4, 11), timeoutMs: 5 },
      {
        url: "http://127.0.0.1:1/b?x=1",
        headers: { "content-type": "application/json", "webhook-id": "msg_1", "x-empty": "" },
        body: Buffer.from("{}"),
        timeoutMs: 15_000,
      },
    ];
    const wire: WireRequests = [];
    requests.forEach((r, i) => packRequest(wire, 10 + i, r));
    const got: [number, SendRequest][] = [];
    unpackRequests(structuredClone(wire), (id, req) => got.push([id, req]));
    expect(got.map(([id]) => id)).toEqual([10, 11]);
    got.forEach(([, req], i) => {
      expect(req.url).toBe(requests[i]!.url);
      expect(req.headers).toEqual(requests[i]!.headers);
      expect(req.timeoutMs).toBe(requests[i]!.timeoutMs);
      expect(req.body.toString()).toBe(requests[i]!.body.toString());
      expect(req.body.buffer.byteLength).toBe(req.body.byteLength);
    });
  });

  it("results cross with every field, empty ones included", () => {
    const results: SendResult[] = [
      { status: 200, error: null, errorDetail: null, snippet: "ok", retryAfter: null },
      { status: 429, error: null, errorDetail: null, snippet: "", retryAfter: "120" },
      { status: null, error: "timeout", errorDetail: "no answer", snippet: "", retryAfter: null },
    ];
    const wire: WireResults = [];
    results.forEach((r, i) => packResult(wire, i + 1, r, i * 3));
    expect(resultCount(wire)).toBe(results.length);
    const got: [number, SendResult][] = [];
    unpackResults(structuredClone(wire), (id, r) => got.push([id, r]));
    expect(got).toEqual(results.map((r, i) => [i + 1, { ...r, durationMs: i * 3 }]));
  });
});
