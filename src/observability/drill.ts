/**
 * Failure drills: prove, on the running hookline, that failure handling works end to end. A drill
 * points hookline's own drill endpoint at a receiver it runs on loopback (answering 503), sends
 * one event, checks that a retry fires, that the dead-letter queue captures the event when the
 * drill's short ladder runs out, and that a replay delivers it (the receiver now answering 200,
 * the signature checked). Each step is timed; the result is recorded and exported as metrics.
 */
import { performance } from "node:perf_hooks";
import type { Clock, TimerHandle } from "../clock.js";
import type { DeadLetterQueue } from "../dlq/service.js";
import type { Endpoint } from "../domain/types.js";
import type { EndpointPinning, EngineControl } from "../engine/control.js";
import { endpointsDeleted } from "../engine/endpoints-deleted.js";
import type { EngineEvent, EngineEvents } from "../engine/events.js";
import type { ExemptTargets } from "../engine/guarded-connect.js";
import { ConflictError } from "../errors.js";
import { newId } from "../ids.js";
import { generateSecret } from "../signing/secret.js";
import type { DrillRun, DrillStep, Store } from "../store/port.js";
import { DrillReceiver } from "./drill-receiver.js";
import type { HooklineMetrics } from "./metrics.js";
import { ensureSystemApp, DRILL_APP_UID } from "./system-apps.js";

/** The event type of drill messages. */
export const DRILL_EVENT_TYPE = "hookline.drill";
const DRILL_ENDPOINT_UID = "drill";
/** Drill runs kept in the store. */
const RUNS_KEPT = 100;

export interface DrillDeps {
  store: Store;
  engine: EngineControl;
  /**
   * This process's engine, to keep the drill endpoint here while a drill runs; null where this
   * process does not deliver (it runs no drill).
   */
  pinning: EndpointPinning | null;
  events: EngineEvents;
  dlq: DeadLetterQueue;
  clock: Clock;
  metrics: HooklineMetrics;
  exempt: ExemptTargets;
  settings: { intervalMs: number; stepTimeoutMs: number };
  logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Called once the drill's application exists (so it is known as hookline's own). */
  onPrepared?: () => void;
}

class StepFailed extends Error {}

/** Runs drills on demand and on the configured schedule; one at a time. */
export class DrillRunner {
  private current: Promise<DrillRun> | null = null;
  private timer: TimerHandle | null = null;
  private running = false;

  constructor(private readonly deps: DrillDeps) {}

  /** Runs a drill, or joins the one already running. */
  run(trigger: DrillRun["trigger"]): Promise<DrillRun> {
    this.current ??= this.execute(trigger).finally(() => (this.current = null));
    return this.current;
  }

  /** Starts the schedule, if one is configured. */
  start(): void {
    this.running = true;
    this.arm();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    this.timer = null;
    await this.current?.catch(() => undefined);
  }

  private arm(): void {
    const every = this.deps.settings.intervalMs;
    if (!this.running || every <= 0) return;
    this.timer = this.deps.clock.setTimer(() => {
      this.timer = null;
      void this.run("schedule")
        .catch(() => undefined)
        .finally(() => this.arm());
    }, every);
  }

  private async execute(trigger: DrillRun["trigger"]): Promise<DrillRun> {
    const { store, clock, metrics, logger } = this.deps;
    const startedAt = clock.now();
    const steps: DrillStep[] = [];
    const secret = generateSecret();
    const receiver = new DrillReceiver(this.deps.exempt, secret);
    const step = async (name: string, fn: () => Promise<string>): Promise<void> => {
      const t0 = performance.now();
      try {
        const detail = await fn();
        steps.push({ name, passed: true, ms: Math.round(performance.now() - t0), detail });
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        steps.push({ name, passed: false, ms: Math.round(performance.now() - t0), detail });
        throw new StepFailed(detail, { cause: err });
      }
    };
    const pinned: string[] = [];
    try {
      await this.steps(step, receiver, secret, pinned);
    } catch (err) {
      if (!(err instanceof StepFailed)) {
        steps.push({ name: "drill", passed: false, ms: 0, detail: String(err) });
      }
    } finally {
      for (const id of pinned) this.deps.pinning?.unpin(id);
      await receiver.stop();
    }
    const run: DrillRun = {
      id: newId("drill", startedAt),
      trigger,
      startedAt,
      finishedAt: clock.now(),
      passed: steps.length > 0 && steps.every((s) => s.passed),
      steps,
    };
    await store.recordDrillRun(run, RUNS_KEPT);
    metrics.drillFinished(run.passed, run.startedAt);
    const log = { drillId: run.id, steps: steps.map((s) => `${s.name}:${s.passed}:${s.ms}ms`) };
    if (run.passed) logger.info(log, "failure drill passed");
    else logger.warn(log, "failure drill failed");
    return run;
  }

  private async steps(
    step: (name: string, fn: () => Promise<string>) => Promise<void>,
    receiver: DrillReceiver,
    secret: string,
    pinned: string[],
  ): Promise<void> {
    const { store, engine, clock, dlq } = this.deps;
    let endpoint: Endpoint | null = null;
    await step("prepare", async () => {
      await receiver.start();
      // A new endpoint each run: no process holds settings of it to invalidate.
      endpoint = await this.prepareEndpoint(receiver.url, secret, pinned);
      return `drill receiver at ${receiver.url}, endpoint ${endpoint.id}`;
    });
    const ep = endpoint!;
    const now = clock.now();
    const deliveryId = newId("dlv", now);
    const messageId = newId("msg", now);
    // Listen before sending, so fast outcomes cannot be missed.
    const retried = this.watch(
      (e) => e.type === "delivery" && e.deliveryId === deliveryId && e.attempt?.trigger === "retry",
    );
    const dead = this.watch(
      (e) =>
        e.type === "dead-letter" &&
        e.change.kind === "recorded" &&
        e.change.deliveryId === deliveryId,
    );
    await step("send", async () => {
      const accepted = await store.acceptMessage({
        id: messageId,
        appId: ep.appId,
        eventType: DRILL_EVENT_TYPE,
        eventId: null,
        channels: null,
        tags: null,
        payload: Buffer.from(JSON.stringify({ drill: true, at: new Date(now).toISOString() })),
        now,
        dueAt: now,
        newDeliveryId: () => deliveryId,
        // Its application is listed with the others and may have gained endpoints by hand.
        onlyEndpointId: ep.id,
      });
      if (accepted.deliveries !== 1) throw new Error("the drill message found no drill endpoint");
      engine.wake(now);
      return `message ${messageId}`;
    });
    await step("retries fire", async () => {
      await retried;
      return `the receiver answered 503 and a retry was sent (${receiver.requests.length} requests so far)`;
    });
    let deadLetterId = "";
    await step("dead-lettered", async () => {
      const e = await dead;
      if (e.type === "dead-letter") deadLetterId = e.change.deadLetterId;
      return `record ${deadLetterId} after the drill ladder ran out`;
    });
    await step("replay delivers", async () => {
      receiver.healthy = true;
      const answer = await dlq.replay(deadLetterId, { actor: "hookline drill", note: "drill" });
      if (answer.kind !== "attempted" || answer.result !== "succeeded") {
        const what = answer.kind === "attempted" ? answer.result : answer.kind;
        throw new Error(`the replay did not succeed (${what})`);
      }
      const last = receiver.requests.at(-1);
      const first = receiver.requests[0];
      if (!last || last.status !== 200) throw new Error("the receiver did not get the replay");
      if (!last.signatureValid) throw new Error("the replay's signature did not verify");
      if (!first || !last.body.equals(first.body) || last.webhookId !== messageId) {
        throw new Error("the replay's body or webhook-id differs from the original");
      }
      return `replayed with a valid signature; the record is ${answer.record.state}`;
    });
  }

  /**
   * A new drill endpoint for this run, kept with this process's engine (`pinned`) and pointed at
   * its receiver and secret. The last run's goes first: each drill fails its endpoint on purpose,
   * and on one endpoint those failures would add up in its circuit breaker (20 within 5 minutes
   * open it). An open circuit would fail every drill after it, for good: each one's first
   * request, sent as the probe, meets the receiver's deliberate 503 and keeps the circuit open.
   */
  private async prepareEndpoint(url: string, secret: string, pinned: string[]): Promise<Endpoint> {
    const { store, clock } = this.deps;
    const app = await ensureSystemApp(store, clock, DRILL_APP_UID);
    this.deps.metrics.drillApplication(app.id);
    this.deps.onPrepared?.();
    for (;;) {
      await this.deleteLastEndpoint(app.id, pinned);
      const now = clock.now();
      const id = newId("ep", now);
      // Ours before it exists, so a drill starting elsewhere meanwhile waits for this one.
      await this.hold(id, pinned);
      try {
        return await store.createEndpoint(drillEndpoint(id, app.id, url, secret, now));
      } catch (err) {
        // A drill elsewhere made its endpoint between this one's look and its create (it had
        // deleted the last one, so there was none to wait for): that one is the one to wait for.
        if (!(err instanceof ConflictError)) throw err;
        this.letGoOfLast(pinned);
      }
    }
  }

  /**
   * Deletes the last run's drill endpoint once it is ours: a drill running in another process
   * keeps it until that drill ends (and its worker lets go of it).
   */
  private async deleteLastEndpoint(appId: string, pinned: string[]): Promise<void> {
    const { store } = this.deps;
    for (;;) {
      const last = await store.findEndpoint(appId, DRILL_ENDPOINT_UID);
      if (!last) return;
      await this.hold(last.id, pinned);
      // Replaced meanwhile by a drill elsewhere: that one's is the one to wait for. The take
      // just made is of an endpoint that drill deleted; let go of it now rather than count it in
      // this worker's share for the whole of the wait and the drill.
      if ((await store.findEndpoint(appId, DRILL_ENDPOINT_UID))?.id !== last.id) {
        this.letGoOfLast(pinned);
        continue;
      }
      await store.deleteEndpoint(appId, last.id);
      endpointsDeleted(this.deps, [last.id]);
      return;
    }
  }

  /** Takes `endpointId` (see {@link pin}) and keeps it in `pinned`, let go of as the drill ends. */
  private async hold(endpointId: string, pinned: string[]): Promise<void> {
    await this.pin(endpointId);
    pinned.push(endpointId);
  }

  /** Lets go of the endpoint taken last, now rather than as the drill ends. */
  private letGoOfLast(pinned: string[]): void {
    const id = pinned.pop();
    if (id) this.deps.pinning?.unpin(id);
  }

  /**
   * Takes the endpoint for this process's engine, so that every attempt of the drill is made
   * here, where its receiver listens. Another worker holding it (a drill of its own, or one it
   * ran lately, let go of once idle) is waited for, up to the step's time.
   */
  private async pin(endpointId: string): Promise<void> {
    const { pinning, clock, settings } = this.deps;
    if (!pinning) return;
    const until = clock.now() + settings.stepTimeoutMs;
    while (!(await pinning.pin(endpointId))) {
      if (clock.now() >= until) {
        throw new Error(
          "another hookline worker kept the drill endpoint for the whole step; a drill running " +
            "there holds it until it ends, and an idle one lets go within seconds",
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** An event awaited later; a rejection nobody awaits (an earlier step failed) is not an error. */
  private watch(predicate: (e: EngineEvent) => boolean): Promise<EngineEvent> {
    const p = this.deps.events.waitFor(predicate, this.deps.settings.stepTimeoutMs);
    p.catch(() => undefined);
    return p;
  }
}

/** The drill's endpoint: its receiver, secret and a ladder short enough to end in seconds. */
function drillEndpoint(id: string, appId: string, url: string, secret: string, now: number) {
  return {
    id,
    appId,
    uid: DRILL_ENDPOINT_UID,
    description: "hookline failure drills",
    version: 1,
    headers: {},
    metadata: {},
    rateLimit: null,
    createdAt: now,
    url,
    disabled: false,
    disabledReason: null,
    secrets: { current: secret, previous: [] },
    filterTypes: [DRILL_EVENT_TYPE],
    // The drill message has no channel: an endpoint given channels by hand would not take it.
    channels: null,
    // A short ladder: three attempts a second apart, so the drill ends in seconds.
    deliveryPolicy: {
      retry: { delays: [1, 1], jitter: { strategy: "none" as const } },
      timeoutMs: 5_000,
    },
    updatedAt: now,
  } satisfies Endpoint;
}
