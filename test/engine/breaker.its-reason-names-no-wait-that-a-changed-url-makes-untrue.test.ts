/**
 * The breaker wrote its reason with the wait it had just set, counted from then: "…; next probe
 * in 1 h, as its Retry-After asked". The API gives that reason as the circuit's, and a client
 * reading it later was told the probe was an hour off for as long as the circuit stayed so, and
 * after a changed URL had brought the probe forward to now. The reason now says why the circuit
 * is open and no wait; when the probe goes is the circuit's `nextProbeAt`, and it is on the
 * circuit's log line and in its event too.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { loggerToLines } from "../support/log-lines.js";
import { Receiver } from "../support/receiver.js";

const HOUR = 3_600_000;
const { logger, lines } = loggerToLines({ level: "warn" });

let h: TestHookline;
let rx: Receiver;
let answer: () => void = () => {};
beforeAll(async () => {
  h = await startHookline({
    overrides: {
      breaker: { consecutiveFailures: 1 },
      logger,
    },
  });
  // Down for maintenance, back in an hour; the fixed URL's probe is held until the test is done.
  const held = new Promise<void>((resolve) => (answer = resolve));
  rx = await Receiver.start((req) =>
    req.path === "/fixed"
      ? { status: 200, until: held }
      : { status: 503, headers: { "retry-after": "3600" } },
  );
});
afterAll(async () => {
  answer();
  await h.stop();
  await rx.close();
});

interface CircuitOut {
  state: string;
  reason: string;
  nextProbeAt: string;
}

it("says why the circuit is open and no wait, before and after a changed URL moves the probe", async () => {
  const ep = await anEndpoint(h, rx.url("/maintenance"), { retry: { preset: "default" } });
  const path = `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`;
  const opened = h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
  const msg = await post(h, ep.appId, { n: 1 });
  const event = await opened;
  // Its retry stored, held for the probe: what a changed URL brings forward with the probe.
  await h.waitFor(deliveryOf(msg, "pending"));

  const before = (await h.api<CircuitOut>("GET", `${path}/circuit`)).body;
  expect(before.state).toBe("open");
  expect(Date.parse(before.nextProbeAt) - Date.now()).toBeGreaterThan(HOUR / 2);
  expect(before.reason).toBe(
    "1 consecutive failures within 60 s; last: HTTP 503; the receiver's Retry-After put the probe off",
  );
  // The probe's time goes with the reason wherever the reason goes without the API.
  expect(event.type === "circuit" && event.nextProbeAt).toBe(Date.parse(before.nextProbeAt));
  const logged = lines
    .map((l) => JSON.parse(l) as { msg: string; nextProbeAt?: string })
    .find((l) => l.msg === "circuit");
  expect(logged?.nextProbeAt).toBe(before.nextProbeAt);

  // The customer points the endpoint at a fixed URL: the probe goes now, and is held there.
  expect((await h.api("PATCH", path, { url: rx.url("/fixed") })).status).toBe(200);
  await rx.waitFor(1, "/fixed");
  const after = (await h.api<CircuitOut>("GET", `${path}/circuit`)).body;
  expect(after.state).toBe("open");
  expect(Date.parse(after.nextProbeAt)).toBeLessThanOrEqual(Date.now());
  expect(after.reason).not.toMatch(/next probe|\d+ (h|min)\b/);
  expect((await h.api<{ circuit: CircuitOut }>("GET", path)).body.circuit.reason).toBe(
    after.reason,
  );
});
