/**
 * Whether anyone listens for hookline's operational events is read again from the store every
 * minute: another process sharing the store may register an endpoint, and this one hears nothing
 * of it. The minute was counted by the wall clock, so after the clock was set back (NTP stepping
 * it, a VM restored) the check waited for the clock to catch up, an hour for an hour, and the
 * events of that hour went to no one. A check stamped later than now is now read again at once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { systemClock, type Clock } from "../../src/clock.js";
import { anEndpoint, post } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";
import { anEndpoint as storedEndpoint } from "../store/behaviour/fixtures.js";

const HOUR = 3_600_000;

/** The wall clock, which a test can set back as NTP would; timers run as Node's do. */
function steppableClock(): Clock & { setBack(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    setTimer: (fn, ms) => systemClock.setTimer(fn, ms),
    clearTimer: (handle) => systemClock.clearTimer(handle),
    setBack(ms) {
      offset -= ms;
    },
  };
}

let h: TestHookline | undefined;
const receivers: Receiver[] = [];
afterEach(async () => {
  await h?.stop();
  for (const r of receivers.splice(0)) await r.close();
});

describe("an operational endpoint registered by another process", () => {
  it("receives events as soon as the clock is set back", { timeout: 30_000 }, async () => {
    const clock = steppableClock();
    h = await startHookline({ overrides: { clock } });
    const gone = await Receiver.start(() => ({ status: 410 }));
    const ops = await Receiver.start(() => ({ status: 204 }));
    receivers.push(gone, ops);

    // An endpoint disabled by its receiver's 410: no one listens yet, which is now known.
    const first = await anEndpoint(h, gone.url("/first"));
    const ended = Promise.all([
      h.waitFor((e) => e.type === "endpoint.disabled" && e.endpointId === first.endpointId),
      h.waitFor((e) => e.type === "delivery" && e.endpointId === first.endpointId),
    ]);
    await post(h, first.appId, { n: 1 });
    await ended;
    await h.hookline.observability.operational.idle();

    // Another process registers an operational endpoint: written to the store, unannounced here.
    clock.setBack(HOUR);
    const opsApp = await h.hookline.observability.operational.application();
    expect((await h.hookline.store.listEndpoints(opsApp.id, { limit: 1 })).data).toEqual([]);
    await h.hookline.store.createEndpoint(storedEndpoint(opsApp.id, { url: ops.url("/ops") }));

    const second = await anEndpoint(h, gone.url("/second"));
    await post(h, second.appId, { n: 2 });
    // The 410 ends the message (message.attempt.exhausted) and disables the endpoint.
    await ops.waitFor(2, "/ops", 10_000);
    const events = ops
      .on("/ops")
      .map(
        (r) =>
          JSON.parse(r.body.toString("utf8")) as { type: string; data: { endpointId: string } },
      );
    expect(events.map((e) => [e.type, e.data.endpointId]).sort()).toEqual(
      [
        ["endpoint.disabled", second.endpointId],
        ["message.attempt.exhausted", second.endpointId],
      ].sort(),
    );
  });
});
