/**
 * For the tests of deliveries an endpoint's circuit holds back, through the API and in the
 * portal: messages that fail together as the circuit opens, the trickle a half-open circuit lets
 * out, and the circuit as the API gives it.
 */
import { ONE_ATTEMPT, post } from "./dlq.js";
import type { GatedReceiver } from "./gated-receiver.js";
import { deliveryOf, type TestHookline } from "./hookline.js";
import type { Behaviour, Receiver } from "./receiver.js";

/** Posts an `order.paid` message with the payload `{ n }` to `appId`; resolves with its id. */
export async function postOrder(h: TestHookline, appId: string, n: number): Promise<string> {
  return (await h.svix.message.create(appId, { eventType: "order.paid", payload: { n } })).id;
}

/**
 * Posts `count` messages to `appId`, whose endpoint `epId` is `rx` answering a failure, and lets
 * their requests fail only once all of them are held, so that they fail at once: the circuit opens
 * as their retries are being set. Resolves with their ids once the circuit's event is in.
 */
export async function failTogether(
  h: TestHookline,
  rx: GatedReceiver,
  appId: string,
  epId: string,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 1; n <= count; n++) ids.push(await postOrder(h, appId, n));
  await rx.arrived(count);
  rx.release();
  await h.waitFor((e) => e.type === "circuit" && e.endpointId === epId);
  return ids;
}

/** The circuit of endpoint `epId` of `appId`, as the API gives it. */
export async function circuitOf(
  h: TestHookline,
  appId: string,
  epId: string,
): Promise<{ state: string; nextProbeAt: string }> {
  const res = await h.api<{ state: string; nextProbeAt: string }>(
    "GET",
    `/api/v1/app/${appId}/endpoint/${epId}/circuit`,
  );
  return res.body;
}

/** A breaker that one failure opens, with its probe a second later. */
export const OPENS_AT_ONE_FAILURE = { consecutiveFailures: 1, probeDelayMs: 1_000 };

/**
 * A receiver's answers for {@link deliveriesBehindAHalfOpenCircuit}: the first request fails, the
 * probe (the second) succeeds, and the trickle after it is held until `trickleHeld` settles.
 */
export function probedThenHeld(trickleHeld: Promise<void>): Behaviour {
  return (_, i) =>
    i === 0 ? { status: 500 } : i === 1 ? { status: 200 } : { status: 200, until: trickleHeld };
}

/**
 * Nine deliveries behind a half-open circuit, on a hookline whose breaker is
 * {@link OPENS_AT_ONE_FAILURE} and a receiver answering {@link probedThenHeld}. An application
 * "Acme" retrying a second after a failure, with the probe rather than 30 s on, and the longest
 * request timeout, so that the held trickle does not time out while the test reads; its endpoint
 * at `rx`'s /hook. The first message fails and opens the circuit; eight more are held for the
 * probe, all due at once when it gets through. Resolves once the trickle's two requests are out
 * and the probed delivery has succeeded, with the ids and the probed message's id.
 */
export async function deliveriesBehindAHalfOpenCircuit(
  h: TestHookline,
  rx: Receiver,
): Promise<{ appId: string; epId: string; msgIds: string[]; probed: string }> {
  const app = await h.api<{ id: string }>("POST", "/api/v1/app", {
    name: "Acme",
    deliveryPolicy: { retry: { delays: [1], window: 3600 }, timeoutMs: 30_000 },
  });
  const appId = app.body.id;
  const epId = (await h.svix.endpoint.create(appId, { url: rx.url("/hook") })).id;
  const msgIds = [await postOrder(h, appId, 0)];
  await h.waitFor((e) => e.type === "circuit" && e.endpointId === epId);
  for (let n = 1; n <= 8; n++) msgIds.push(await postOrder(h, appId, n));
  await h.waitFor((e) => e.type === "circuit" && e.transition.to === "half-open");
  await rx.waitFor(4);
  const probed = rx.requests[1]!.headers["webhook-id"]!;
  await h.waitFor(
    (e) => e.type === "delivery" && e.messageId === probed && e.state === "succeeded",
  );
  return { appId, epId, msgIds, probed };
}

/**
 * A dashboard's hookline and receiver (`useDashboard`'s options) for {@link heldForTheProbe}: two
 * failures in a row open a circuit, whose probe is an hour off; the receiver fails at /billing.
 */
export const BILLING_FAILS = {
  hookline: { overrides: { breaker: { consecutiveFailures: 2, probeDelayMs: 60 * 60_000 } } },
  receiver: ((req) =>
    req.path === "/billing"
      ? { status: 500, body: "down" }
      : { status: 200, body: "ok" }) as Behaviour,
};

/**
 * With {@link BILLING_FAILS}: adds `appId` an endpoint at /billing tried once per message, has two
 * messages given up there (its circuit opens), and posts a third once it is open, which waits for
 * the probe. Resolves with the endpoint's id and the waiting message's.
 */
export async function heldForTheProbe(
  h: TestHookline,
  rx: Receiver,
  appId: string,
): Promise<{ billing: string; held: string }> {
  const billing = (
    await h.api<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, {
      url: rx.url("/billing"),
      deliveryPolicy: ONE_ATTEMPT,
    })
  ).body.id;
  for (const n of [1, 2]) {
    await h.waitFor(deliveryOf(await post(h, appId, { invoice: n }), "dead", billing));
  }
  return { billing, held: await post(h, appId, { invoice: 3 }) };
}
