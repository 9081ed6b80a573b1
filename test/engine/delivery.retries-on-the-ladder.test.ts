import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

const ladder = { retry: { delays: [10, 20, 40], window: 3600 } };

describe("failed attempts are retried on the endpoint's ladder", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("retries at exactly the nominal delays, then succeeds, recording every attempt", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start((_r, i) => ({ status: i < 2 ? 500 : 200, body: `answer ${i}` }));
    const ep = await h.addEndpoint(rx.url("/hook"), ladder);
    const start = clock.now();
    const msgId = await h.post({ n: 1 });

    const first = await h.waitFor(reached(msgId, "pending"));
    expect(first.type === "delivery" && first.nextAttemptAt).toBe(start + 10_000);
    clock.advance(9_999);
    await settle();
    expect(rx.requests).toHaveLength(1);
    clock.advance(1);
    await rx.waitFor(2);
    await h.waitFor((e) => e.type === "delivery" && e.attempt?.trigger === "retry");
    clock.advance(20_000);
    await h.waitFor(reached(msgId, "succeeded"));

    const page = await h.store.listAttempts({ appId: h.app.id, messageId: msgId, limit: 10 });
    const attempts = page.data.reverse();
    expect(attempts.map((a) => a.trigger)).toEqual(["first", "retry", "retry"]);
    expect(attempts.map((a) => a.status)).toEqual([500, 500, 200]);
    expect(attempts.map((a) => a.outcome)).toEqual(["retryable", "retryable", "success"]);
    expect(attempts[0]!.responseSnippet).toBe("answer 0");
    expect(attempts[0]!.endpointId).toBe(ep.id);
    // The same webhook-id and the same body on every attempt.
    expect(new Set(rx.requests.map((r) => r.headers["webhook-id"]))).toEqual(new Set([msgId]));
    expect(new Set(rx.requests.map((r) => r.body.toString()))).toEqual(new Set(['{"n":1}']));
  });

  it("keeps at most 4 KiB of a response body", async () => {
    h = await startEngine();
    rx = await Receiver.start(() => ({ status: 200, body: "x".repeat(100_000) }));
    await h.addEndpoint(rx.url("/big"));
    const msgId = await h.post({});
    await h.waitFor(reached(msgId, "succeeded"));
    const page = await h.store.listAttempts({ appId: h.app.id, messageId: msgId, limit: 1 });
    expect(page.data[0]!.responseSnippet.length).toBe(4096);
  });

  it("treats a redirect as a failure and does not follow it", async () => {
    h = await startEngine();
    rx = await Receiver.start((r) =>
      r.path === "/moved"
        ? { status: 301, headers: { location: rx.url("/target") } }
        : { status: 200 },
    );
    await h.addEndpoint(rx.url("/moved"), ladder);
    const msgId = await h.post({});
    await h.waitFor(reached(msgId, "pending"));
    expect(rx.on("/target")).toHaveLength(0);
  });
});
