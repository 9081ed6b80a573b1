/**
 * Helpers for dead-letter tests against a whole hookline: an application with one endpoint, and
 * messages driven into the dead-letter queue by a failing receiver, all through the API.
 */
import { expect } from "vitest";
import type { DeliveryPolicy } from "../../src/domain/types.js";
import type { BreakerSettings } from "../../src/engine/breaker.js";
import type { EngineEvent } from "../../src/engine/events.js";
import { deliveryOf, startHookline, type TestHookline } from "./hookline.js";
import { Receiver, type Behaviour } from "./receiver.js";

let seq = 0;

/** A breaker that does not open during a test that fails many deliveries on purpose. */
export const PATIENT_BREAKER: Partial<BreakerSettings> = {
  consecutiveFailures: 10_000,
  windowFailures: 10_000,
};

/** One attempt, then the dead-letter queue: the quickest way to make records. */
export const ONE_ATTEMPT: DeliveryPolicy = { retry: { preset: "manual" } };

export interface TestEndpoint {
  appId: string;
  endpointId: string;
  secret: string;
}

/** A new application with one endpoint at `url`. */
export async function anEndpoint(
  h: TestHookline,
  url: string,
  policy: DeliveryPolicy = ONE_ATTEMPT,
): Promise<TestEndpoint> {
  const app = await h.api<{ id: string }>("POST", "/api/v1/app", { name: "Acme" });
  expect(app.status).toBe(201);
  const ep = await h.api<{ id: string }>("POST", `/api/v1/app/${app.body.id}/endpoint`, {
    url,
    deliveryPolicy: policy,
  });
  expect(ep.status).toBe(201);
  const secret = await h.api<{ key: string }>(
    "GET",
    `/api/v1/app/${app.body.id}/endpoint/${ep.body.id}/secret`,
  );
  return { appId: app.body.id, endpointId: ep.body.id, secret: secret.body.key };
}

/** Posts a message and returns its id. */
export async function post(
  h: TestHookline,
  appId: string,
  payload: unknown,
  extra: { eventType?: string; eventId?: string } = {},
): Promise<string> {
  const res = await h.api<{ id: string }>("POST", `/api/v1/app/${appId}/msg`, {
    eventType: extra.eventType ?? "invoice.failed",
    payload,
    ...(extra.eventId ? { eventId: extra.eventId } : {}),
  });
  expect(res.status).toBe(202);
  return res.body.id;
}

/** A dead-letter record as the API lists it. */
export interface RecordOut {
  id: string;
  messageId: string;
  endpointId: string;
  state: string;
  replayCount: number;
  failedReplays: number;
  eventType: string;
  [key: string]: unknown;
}

/**
 * Posts `n` messages to `ep`'s application and waits until each was given up on; returns their
 * records, oldest first.
 */
export async function deadLetters(
  h: TestHookline,
  ep: TestEndpoint,
  n: number,
  extra: { eventType?: string } = {},
): Promise<RecordOut[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(await post(h, ep.appId, { n: i, at: "dead" }, { ...extra, eventId: `evt-${++seq}` }));
  }
  for (const id of ids) await h.waitFor(deliveryOf(id, "dead", ep.endpointId));
  const list = await h.api<{ data: RecordOut[] }>(
    "GET",
    `/api/v1/dlq?endpoint_id=${ep.endpointId}&order=ascending&limit=250`,
  );
  const byMessage = new Map(list.body.data.map((r) => [r.messageId, r]));
  return ids.map((id) => byMessage.get(id)).filter((r): r is RecordOut => r !== undefined);
}

/** A replay job as the API shows it. */
export interface JobOut {
  id: string;
  state: string;
  stage: string;
  reason: string | null;
  progress: {
    total: number | null;
    queued: number;
    succeeded: number;
    failed: number;
    skipped: number;
    withdrawn: number;
    waiting: number | null;
    outstanding: number;
  };
  [key: string]: unknown;
}

/** Polls a job until `done(job)`; fails with its last state after `timeoutMs`. */
export async function untilJob(
  h: TestHookline,
  jobId: string,
  done: (job: JobOut) => boolean,
  timeoutMs = 20_000,
): Promise<JobOut> {
  const deadline = Date.now() + timeoutMs;
  let job: JobOut | null = null;
  while (Date.now() < deadline) {
    job = (await h.api<JobOut>("GET", `/api/v1/dlq/replay/${jobId}`)).body;
    if (done(job)) return job;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`job ${jobId} did not reach the state asked for: ${JSON.stringify(job)}`);
}

/**
 * A bulk replay whose receiver fails again after its canary passed, on a hookline whose breaker
 * three failures open with the probe far off. `rx` first answers 429 (no failure to the breaker,
 * so the records are made with the circuit closed) to make twenty dead letters at an endpoint
 * taking one request at a time: the third failure then opens the circuit while the other replays
 * wait for the endpoint, not after they were all sent (with room for every replay at once, a
 * loaded machine sent all seventeen before the third answer came back, and nothing was left to
 * withdraw). The job replays them with a canary of three that `rx` answers 200, then 503 to the
 * rest. Resolves with the endpoint and the job once it has ended with nothing outstanding.
 */
export async function aReplayItsReceiverFailsAgain(
  h: TestHookline,
  rx: Receiver,
): Promise<{ ep: TestEndpoint; job: JobOut }> {
  rx.behave(() => ({ status: 429 }));
  const ep = await anEndpoint(h, rx.url("/hooks"), {
    retry: { preset: "manual" },
    concurrencyLimit: 1,
  });
  await deadLetters(h, ep, 20);
  let replays = 0;
  rx.behave(() => ({ status: ++replays <= 3 ? 200 : 503 }));

  const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
    endpointId: ep.endpointId,
    ratePerSecond: 1000,
    canarySize: 3,
  });
  const job = await untilJob(
    h,
    started.body.id,
    (j) => j.state !== "running" && j.progress.outstanding === 0,
  );
  return { ep, job };
}

/**
 * Two dead letters on a hookline whose breaker stays closed, at an endpoint whose receiver then
 * holds every request unanswered: a replay of them stays out for as long as a test needs.
 * `answerHeld` answers the held requests and any later one (503), as a test must before it stops
 * `h`; `closeReceiver` stops the receiver.
 */
export async function recordsWhoseReplaysHang(): Promise<{
  h: TestHookline;
  appId: string;
  answerHeld: () => void;
  closeReceiver: () => Promise<void>;
}> {
  let answerHeld = () => {};
  const held = new Promise<void>((r) => (answerHeld = r));
  let hang = false;
  const rx = await Receiver.start(() =>
    hang ? { status: 503, body: "down", until: held } : { status: 503, body: "down" },
  );
  const h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
  const ep = await anEndpoint(h, rx.url("/hooks"));
  await deadLetters(h, ep, 2);
  hang = true;
  return { h, appId: ep.appId, answerHeld, closeReceiver: () => rx.close() };
}

/** Matches a dead-letter change of `kind` (of `deadLetterId`, if given) on the event bus. */
export const dlqChange =
  (kind: string, deadLetterId?: string) =>
  (e: EngineEvent): boolean =>
    e.type === "dead-letter" &&
    e.change.kind === kind &&
    (deadLetterId === undefined || e.change.deadLetterId === deadLetterId);

/**
 * A receiver answering the first request on each path 503 with the Retry-After that `asked` names
 * for the path (120 unless named), and every later one 400, which hookline gives up on at once.
 */
export function askingOnceThenRefusing(asked: Record<string, string> = {}): Behaviour {
  const seen = new Set<string>();
  return (req) => {
    if (seen.has(req.path)) return { status: 400, body: "no longer taken" };
    seen.add(req.path);
    return { status: 503, headers: { "retry-after": asked[req.path] ?? "120" }, body: "busy" };
  };
}

/**
 * Dead-letter records whose first attempt's Retry-After set the time of the retry after it: a
 * message to an endpoint (retry ladder, the default policy) at each of `paths`, whose receiver
 * answers as {@link askingOnceThenRefusing}; once each delivery waits for its retry, a resend
 * brings the retry forward and the 400 it gets ends it. The paths in `atOnce` are those whose
 * receiver asks for no wait (`Retry-After: 0`): their retry goes at once, and the 400 it gets ends
 * it with no resend. Resolves with each path's record.
 */
export async function recordsAfterARetryAfter(
  h: TestHookline,
  url: (path: string) => string,
  paths: string[],
  atOnce: string[] = [],
): Promise<{ appId: string; msgId: string; records: Record<string, RecordOut> }> {
  const appId = (await h.svix.application.create({ name: "Acme" })).id;
  const endpointOf: Record<string, string> = {};
  for (const path of [...paths, ...atOnce]) {
    endpointOf[path] = (await h.svix.endpoint.create(appId, { url: url(path) })).id;
  }
  const msgId = await post(h, appId, { invoice: 7 });
  for (const path of paths) await h.waitFor(deliveryOf(msgId, "pending", endpointOf[path]));
  for (const path of paths) {
    await h.svix.messageAttempt.resend(appId, msgId, endpointOf[path]!);
    await h.waitFor(deliveryOf(msgId, "dead", endpointOf[path]));
  }
  for (const path of atOnce) await h.waitFor(deliveryOf(msgId, "dead", endpointOf[path]));
  const list = await h.api<{ data: RecordOut[] }>("GET", `/api/v1/dlq?message_id=${msgId}`);
  const records = Object.fromEntries(
    [...paths, ...atOnce].map((path) => [
      path,
      list.body.data.find((r) => r.endpointId === endpointOf[path])!,
    ]),
  );
  return { appId, msgId, records };
}
