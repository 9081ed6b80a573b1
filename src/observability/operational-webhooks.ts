/**
 * Operational webhooks: hookline's own events (an endpoint disabled, a circuit opened or closed, a
 * message exhausted, failing or recovered, a dead-letter record abandoned, an alert firing or
 * resolved) delivered to endpoints operators register. Each event is a message in hookline's
 * operational application, so it is signed, retried and dead-lettered like any other. Event names
 * are Svix's where Svix has the same event.
 */
import type { Clock } from "../clock.js";
import type { Application } from "../domain/types.js";
import type { EngineControl } from "../engine/control.js";
import type { EngineEvent, EngineEvents } from "../engine/events.js";
import { newId } from "../ids.js";
import { lastAttemptOf } from "../store/last-attempt.js";
import type { AlertRecord, Store } from "../store/port.js";
import type { AlertChanges } from "./alert-rules.js";
import { alertViews } from "./alert-view.js";
import {
  ensureSystemApp,
  isSystemApp,
  OPERATIONAL_APP_UID,
  type SystemEndpoints,
} from "./system-apps.js";

/** Every operational event type hookline sends. */
export const OPERATIONAL_EVENT_TYPES = [
  "endpoint.disabled",
  "endpoint.circuit_opened",
  "endpoint.circuit_closed",
  "message.attempt.exhausted",
  "message.attempt.failing",
  "message.attempt.recovered",
  "dlq.record_abandoned",
  "alert.firing",
  "alert.resolved",
] as const;

export type OperationalEventType = (typeof OPERATIONAL_EVENT_TYPES)[number];

export interface OperationalDeps {
  store: Store;
  engine: EngineControl;
  events: EngineEvents;
  clock: Clock;
  system: SystemEndpoints;
  /** Failed attempts of one delivery after which `message.attempt.failing` is sent. */
  failingAfter: number;
  logger: { error(obj: object, msg: string): void };
}

/** Turns domain events and alerts into operational messages; see the module comment. */
export class OperationalWebhooks {
  private appId: string | null = null;
  /** Whether the operational application has any endpoint; null: not yet known. */
  private hasEndpoints: boolean | null = null;
  /** When `hasEndpoints` was read: another process sharing the store may register endpoints. */
  private checkedAt = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly deps: OperationalDeps) {
    // Most events (a first attempt that succeeded) are no operational event: skip them at once.
    deps.events.on((e) => {
      if (this.typeOf(e)) this.enqueue(() => this.fromEngine(e));
    });
  }

  /**
   * The operational application, created on first use. Read each time, not kept: the API refuses
   * to delete it, but a store restored from a backup, or cleaned by hand, may lack it; it is then
   * made anew. Throws ConflictError while a customer's application holds its uid.
   */
  async application(): Promise<Application> {
    const app = await ensureSystemApp(this.deps.store, this.deps.clock, OPERATIONAL_APP_UID);
    if (app.id !== this.appId) {
      this.appId = app.id;
      this.deps.system.reset();
    }
    return app;
  }

  /** Operators' endpoints changed: check again whether anyone listens. */
  endpointsChanged(): void {
    this.hasEndpoints = null;
  }

  /** Announces alerts that fired or resolved. */
  alertsChanged(changes: AlertChanges): void {
    this.enqueue(async () => {
      for (const a of changes.fired) await this.alert("alert.firing", a);
      for (const a of changes.resolved) await this.alert("alert.resolved", a);
    });
  }

  /** Resolves once every event seen so far has been written (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue;
  }

  private enqueue(fn: () => Promise<void>): void {
    // In order, one at a time, and a failure never stops the ones after it.
    this.queue = this.queue.then(fn).catch((err: unknown) => {
      this.deps.logger.error({ err }, "sending an operational webhook failed");
    });
  }

  private async alert(type: OperationalEventType, a: AlertRecord): Promise<void> {
    if (a.endpointId && (await this.deps.system.isSystem(a.endpointId))) return;
    const [view] = await alertViews(this.deps.store, [a]);
    await this.send(type, { ...view });
  }

  private async fromEngine(e: EngineEvent): Promise<void> {
    const built = await this.build(e);
    if (built) await this.send(built.type, built.data);
  }

  private async build(
    e: EngineEvent,
  ): Promise<{ type: OperationalEventType; data: Record<string, unknown> } | null> {
    // Decide from the event alone first: most events (a first attempt that succeeded) are none.
    const type = this.typeOf(e);
    if (!type) return null;
    const endpointId = e.type === "dead-letter" ? e.change.endpointId : e.endpointId;
    if (!(await this.listening())) return null;
    // Loop guard: nothing about hookline's own endpoints (operational, drill) is announced.
    if (await this.deps.system.isSystem(endpointId)) return null;
    const ep = await this.deps.store.getEndpoint(endpointId);
    const app = ep ? await this.deps.store.findApplication(ep.appId) : null;
    const base = {
      appId: ep?.appId ?? null,
      appUid: app?.uid ?? null,
      endpointId,
      endpointUid: ep?.uid ?? null,
    };
    if (e.type === "endpoint.disabled") {
      return {
        type,
        data: {
          ...base,
          trigger: e.trigger,
          reason: e.reason,
          // Since when it failed: the 410 that just disabled it. Disabled by hand, nothing failed.
          failSince: e.trigger === "automatic" ? this.iso() : null,
        },
      };
    }
    if (e.type === "circuit") {
      const t = e.transition;
      // The reason names no wait: when an open circuit probes next is said on its own.
      const nextProbeAt = e.nextProbeAt === null ? null : iso(e.nextProbeAt);
      return {
        type,
        data: { ...base, from: t.from, reason: t.reason, at: iso(t.at), nextProbeAt },
      };
    }
    if (e.type === "dead-letter") {
      const c = e.change;
      return {
        type,
        data: {
          ...base,
          dlqId: c.deadLetterId,
          actor: c.actor,
          // Why, in the words of whoever abandoned it, as the record's history shows it; null
          // when hookline did, after failed replays (the detail says so).
          note: c.note ?? null,
          detail: c.detail,
          at: iso(c.at),
        },
      };
    }
    if (e.type !== "delivery") return null;
    let a = e.attempt;
    if (!a) {
      // Given up without a last request (its endpoint disabled, an open circuit holding its retry
      // past the window): as exhausted as any, so announced with the last attempt it did make.
      // A replay's end is the operator's own doing, as with an attempt.
      const delivery = await this.deps.store.getDelivery(e.deliveryId);
      if (!delivery || delivery.origin === "replay") return null;
      a = await lastAttemptOf(this.deps.store, e);
    }
    const message = await this.deps.store.findMessage(e.appId, e.messageId);
    const data: Record<string, unknown> = {
      ...base,
      msgId: e.messageId,
      msgEventId: message?.eventId ?? null,
      // Null only for a delivery given up before it sent anything (its endpoint disabled).
      lastAttempt: a
        ? {
            id: a.id,
            timestamp: iso(a.at),
            responseStatusCode: a.status ?? 0,
            responseDurationMs: a.durationMs,
          }
        : null,
    };
    if (type === "message.attempt.exhausted") data.failureClass = e.failureClass;
    return { type, data };
  }

  /** Which operational event a domain event is, if any. */
  private typeOf(e: EngineEvent): OperationalEventType | null {
    switch (e.type) {
      case "endpoint.disabled":
        return "endpoint.disabled";
      case "circuit":
        // Entering open: a failed probe, or one answered 429, keeps an open circuit open (a
        // transition of its own, with its next probe time) and is not announced again.
        if (e.transition.to === "open") {
          return e.transition.from === "open" ? null : "endpoint.circuit_opened";
        }
        return e.transition.to === "closed" ? "endpoint.circuit_closed" : null;
      case "dead-letter":
        return e.change.kind === "abandoned" ? "dlq.record_abandoned" : null;
      case "endpoint.deleted":
        // What people do to their own endpoints is theirs to know; it is not announced.
        return null;
      case "delivery": {
        if (e.attempt?.trigger === "replay") return null;
        if (e.state === "dead") return "message.attempt.exhausted";
        if (!e.attempt) return null;
        const n = e.attemptNumber ?? 0;
        if (e.state === "pending" && n === this.deps.failingAfter) return "message.attempt.failing";
        if (e.state === "succeeded" && n > this.deps.failingAfter) {
          return "message.attempt.recovered";
        }
        return null;
      }
    }
  }

  private async listening(): Promise<boolean> {
    const now = this.deps.clock.now();
    // A check stamped later than now: the clock was set back, and waiting for it to catch up
    // would leave endpoints another process registered meanwhile unsent to for as long.
    const stale = now - this.checkedAt > RECHECK_MS || now < this.checkedAt;
    if (this.hasEndpoints === null || stale) {
      this.checkedAt = now;
      const app = await this.deps.store.findApplication(OPERATIONAL_APP_UID);
      // A customer's application holding the uid is no one listening for hookline's events.
      this.hasEndpoints =
        app && isSystemApp(app)
          ? (await this.deps.store.listEndpoints(app.id, { limit: 1 })).data.length > 0
          : false;
    }
    return this.hasEndpoints;
  }

  private async send(type: OperationalEventType, data: Record<string, unknown>): Promise<void> {
    if (!(await this.listening())) return;
    const app = await this.application();
    const now = this.deps.clock.now();
    const payload = { type, timestamp: iso(now), data };
    const result = await this.deps.store.acceptMessage({
      id: newId("msg", now),
      appId: app.id,
      eventType: type,
      eventId: null,
      channels: null,
      tags: null,
      payload: Buffer.from(JSON.stringify(payload), "utf8"),
      now,
      dueAt: now,
      newDeliveryId: () => newId("dlv", now),
    });
    if (result.deliveries > 0) this.deps.engine.wake(now);
  }

  private iso(): string {
    return iso(this.deps.clock.now());
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** How often whether anyone listens is read again from the store. */
const RECHECK_MS = 60_000;
