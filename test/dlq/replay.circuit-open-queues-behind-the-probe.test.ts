import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, dlqChange } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("a single replay while the endpoint's circuit is open", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("answers 202 at once: the replay is queued behind the probe, and made at the probe", async () => {
    const clock = new FakeClock();
    h = await startHookline({
      overrides: {
        clock,
        breaker: { consecutiveFailures: 2, probeDelayMs: 5 * 60_000 },
      },
    });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const [first] = await deadLetters(h, ep, 2);
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
    const circuit = await h.api<{ state: string; nextProbeAt: string }>(
      "GET",
      `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}/circuit`,
    );
    expect(circuit.body.state).toBe("open");

    const res = await h.api<{ result: string; detail: string; record: { state: string } }>(
      "POST",
      `/api/v1/dlq/${first!.id}/replay`,
    );
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      result: "queued",
      detail: `the endpoint's circuit is open: the replay is queued behind its probe at ${circuit.body.nextProbeAt}`,
      record: { state: "replaying" },
    });
    expect(rx.requests).toHaveLength(2);

    rx.behave(() => ({ status: 200 }));
    clock.advance(5 * 60_000);
    await h.waitFor(dlqChange("replay_succeeded", first!.id));
    expect(rx.requests).toHaveLength(3);
    const record = await h.api<{ state: string; attempts: { trigger: string }[] }>(
      "GET",
      `/api/v1/dlq/${first!.id}`,
    );
    expect(record.body.state).toBe("resolved");
    expect(record.body.attempts.map((a) => a.trigger)).toEqual(["first", "replay"]);
  });
});
