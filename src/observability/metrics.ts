/**
 * hookline's Prometheus metrics (prom-client): counters fed by the domain event bus as outcomes
 * are committed, gauges read from the store and the engine when /metrics is scraped. Per-endpoint
 * series are bounded by {@link EndpointSlots}; what the store says of those endpoints (circuits
 * the engine does not hold, which are disabled) is in {@link StoredEndpointStates}. See
 * docs/observability.md for every metric.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Clock } from "../clock.js";
import type { Attempt } from "../domain/types.js";
import { ExpiringMap } from "../expiring-map.js";
import { finishedWithin, PROBE_WAIT_MS } from "../finished-within.js";
import type { DeliveryBudget, EngineControl } from "../engine/control.js";
import type { EngineEvent, EngineEvents } from "../engine/events.js";
import type { BacklogSnapshot, DeadLetterChange, Store } from "../store/port.js";
import { DRILL_ENDPOINTS, EndpointSlots, OTHER_ENDPOINTS } from "./endpoint-slots.js";
import { StoredEndpointStates } from "./endpoint-states.js";
import { Tally } from "./tally.js";

export interface MetricsSettings {
  /** Endpoints with series of their own (HOOKLINE_METRICS_MAX_ENDPOINTS); 0: none. */
  maxEndpoints: number;
  /** An endpoint idle this long may give its slot to another. */
  slotIdleMs: number;
}

/** How an attempt's result is counted in `hookline_delivery_attempts_total{class}`. */
type AttemptClass =
  "2xx" | "4xx_permanent" | "4xx_rate_limited" | "5xx" | "timeout" | "transport_error" | "other";

/** The status class of one attempt. */
function attemptClass(a: Pick<Attempt, "status" | "error" | "outcome">): AttemptClass {
  if (a.error === "timeout") return "timeout";
  if (a.error !== null) return "transport_error";
  const s = a.status ?? 0;
  if (s >= 200 && s <= 299) return "2xx";
  if (s === 429) return "4xx_rate_limited";
  if (s >= 400 && s <= 499 && a.outcome === "permanent") return "4xx_permanent";
  if (s >= 500 && s <= 599) return "5xx";
  return "other";
}

/** Every `kind` of `hookline_dlq_events_total`. */
const DEAD_LETTER_CHANGES: readonly DeadLetterChange["kind"][] = [
  "recorded",
  "overflowed",
  "replay_succeeded",
  "replay_failed",
  "replay_withdrawn",
  "resolved",
  "abandoned",
];

/**
 * The `result` of `hookline_dlq_replays_total` each replay's ending counts under. One that sent
 * nothing tells nothing of the receiver: withdrawn, as a bulk job counts it, never failed.
 */
const REPLAY_RESULTS: Partial<Record<DeadLetterChange["kind"], string>> = {
  replay_succeeded: "succeeded",
  replay_failed: "failed",
  replay_withdrawn: "withdrawn",
};

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The metrics of one hookline process and the registry that renders them. */
export class HooklineMetrics {
  readonly registry = new Registry();
  /** Running totals the alert evaluator samples. */
  readonly tally = new Tally();
  readonly slots: EndpointSlots;
  /**
   * Per endpoint with a slot: how to remove each of its series when it loses the slot, by metric
   * and then by its other label's value. Every delivery looks here several times, so the lookup
   * builds no key of its own.
   */
  private readonly series = new Map<string, Map<object, Map<string, () => void>>>();
  /**
   * Endpoints deleted lately. A request in flight as its endpoint was deleted may still end in a
   * circuit transition; counted under `_other`, it does not bring the endpoint's series back.
   */
  private readonly deleted: ExpiringMap<true>;
  /** The store read in progress, shared by whoever asks meanwhile (scrapes, the evaluator). */
  private reading: Promise<BacklogSnapshot> | null = null;
  /** What the scrape being rendered read from the store; null: it could not read it. */
  private shown: BacklogSnapshot | null = null;
  private lastDrillSuccessAt: number | null = null;
  /** The failure drills' application, once a drill has run here (see {@link drillApplication}). */
  private drillAppId: string | null = null;
  /** What the store says of endpoints with a slot: circuits the engine does not hold, disabled. */
  private readonly stored: StoredEndpointStates;

  private readonly attempts = this.counter(
    "hookline_delivery_attempts_total",
    "Attempts by endpoint and status class",
    ["endpoint", "class"],
  );
  private readonly firstAttempts = this.counter(
    "hookline_first_attempts_total",
    "First attempts of deliveries (the denominator of the retry ratio)",
    ["endpoint"],
  );
  private readonly retries = this.counter(
    "hookline_retries_scheduled_total",
    "Retries scheduled on the ladder",
    ["endpoint"],
  );
  private readonly ended = this.counter(
    "hookline_deliveries_ended_total",
    "Deliveries that ended: succeeded, exhausted (ladder ran out) or permanent",
    ["endpoint", "result"],
  );
  private readonly retryAfter = this.counter(
    "hookline_retry_after_total",
    "Retry-After headers honoured, capped or ignored",
    ["endpoint", "use"],
  );
  private readonly latency = new Histogram({
    name: "hookline_receiver_ack_seconds",
    help: "Time from sending a delivery to the receiver's answer",
    labelNames: ["endpoint"],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly transitions = this.counter(
    "hookline_circuit_transitions_total",
    "Circuit breaker transitions by the state entered",
    ["endpoint", "to"],
  );
  private readonly dlqEvents = this.counter(
    "hookline_dlq_events_total",
    "Dead-letter queue changes: recorded, overflowed, replay_succeeded, replay_failed, " +
      "replay_withdrawn (ended without a request), resolved, abandoned",
    ["kind"],
  );
  private readonly replays = this.counter(
    "hookline_dlq_replays_total",
    "Replays of dead-letter records by result: succeeded, failed, withdrawn (ended without a request)",
    ["result"],
  );
  private readonly drills = this.counter("hookline_drill_runs_total", "Failure drills run", [
    "result",
  ]);

  constructor(
    private readonly deps: {
      store: Store;
      engine: EngineControl;
      events: EngineEvents;
      clock: Clock;
      settings: MetricsSettings;
    },
  ) {
    this.slots = new EndpointSlots(deps.settings.maxEndpoints, deps.settings.slotIdleMs, (id) =>
      this.forget(id),
    );
    this.deleted = new ExpiringMap(deps.settings.slotIdleMs);
    this.stored = new StoredEndpointStates({
      store: deps.store,
      engine: deps.engine,
      clock: deps.clock,
      slots: this.slots,
      maxEndpoints: deps.settings.maxEndpoints,
      deletedLately: (id, now) => this.deleted.get(id, now) === true,
    });
    // Series whose labels are known in advance start at 0: one that first appears at 1 shows no
    // increase() in Prometheus, so the first failed drill since start would fire nothing.
    for (const result of ["passed", "failed"]) this.drills.inc({ result }, 0);
    for (const result of Object.values(REPLAY_RESULTS)) this.replays.inc({ result }, 0);
    for (const kind of DEAD_LETTER_CHANGES) this.dlqEvents.inc({ kind }, 0);
    this.defineGauges();
    deps.events.on((e) => this.observe(e));
  }

  /** Counts one committed domain event. */
  observe(e: EngineEvent): void {
    const now = this.deps.clock.now();
    if (e.type === "delivery") {
      // A drill's delivery fails on purpose: under a label of its own, so that rules comparing an
      // endpoint with the others (HooklineEndpointFailing) can leave it out, and a new drill
      // endpoint at every run takes no slot.
      const drill = e.appId === this.drillAppId;
      const ep = drill ? DRILL_ENDPOINTS : this.label(e.endpointId, now);
      // Also a replay that ends without a request: its ending is counted as the record's.
      const replay = e.replay === true;
      if (e.attempt) {
        const cls = attemptClass(e.attempt);
        this.inc(this.attempts, { endpoint: ep, class: cls });
        if (e.attempt.status !== null) {
          this.latency.observe({ endpoint: ep }, e.attempt.durationMs / 1000);
          this.remember(ep, this.latency, { endpoint: ep });
        }
        const t = e.attempt.trigger;
        // A delivery's first attempt may go out as an open circuit's probe.
        if (t === "first" || t === "manual" || (t === "probe" && e.attemptNumber === 1)) {
          this.inc(this.firstAttempts, { endpoint: ep });
          this.tally.firstAttempts++;
        }
        // Nor is it one of the endpoints hookline's own endpoint_failing judges or compares with.
        // A 429 is the receiver pacing hookline, not failing (nor is it to the circuit breaker):
        // it counts toward neither side of an endpoint's health, or a receiver that throttles
        // hard was reported failing, and singled out, while it took every delivery in time.
        const judged = drill || cls === "4xx_rate_limited" ? null : e.endpointId;
        this.tally.attempt(judged, cls === "2xx", now);
      }
      if (e.state === "pending" && e.nextAttemptAt !== null) {
        this.inc(this.retries, { endpoint: ep });
        this.tally.retries++;
      }
      if (e.retryAfter) this.inc(this.retryAfter, { endpoint: ep, use: e.retryAfter });
      // A drill's delivery runs out of its ladder on purpose; its ending is the drill's.
      if (!replay && !drill && (e.state === "succeeded" || e.state === "dead")) {
        const result = e.state === "succeeded" ? "succeeded" : (e.failureClass ?? "permanent");
        this.inc(this.ended, { endpoint: ep, result });
        this.tally.ended(result);
      }
    } else if (e.type === "circuit") {
      const ep = this.label(e.endpointId, now);
      this.inc(this.transitions, { endpoint: ep, to: e.transition.to });
      this.stored.transitioned(e.endpointId, ep, e.transition.to);
    } else if (e.type === "endpoint.deleted") {
      // Its series go now rather than when another endpoint needs the slot (totals keep it all).
      this.deleted.put(e.endpointId, true, now);
      this.stored.forget(e.endpointId);
      this.slots.release(e.endpointId);
    } else if (e.type === "dead-letter") {
      const kind = e.change.kind;
      this.dlqEvents.inc({ kind });
      const replay = REPLAY_RESULTS[kind];
      if (replay) this.replays.inc({ result: replay });
      this.tally.deadLetter(kind);
    }
  }

  /** See {@link StoredEndpointStates.showStoredCircuits}. */
  showStoredCircuits(): Promise<void> {
    return this.stored.showStoredCircuits();
  }

  /**
   * Names the failure drills' application: the ending of a drill's delivery, exhausted on purpose,
   * is counted in `hookline_drill_runs_total`, not as a delivery given up, so that passing drills
   * do not fire retry_exhaustion_rate (here or in the shipped Prometheus rule).
   */
  drillApplication(appId: string): void {
    this.drillAppId = appId;
  }

  /** Counts a finished failure drill. */
  drillFinished(passed: boolean, startedAt: number): void {
    this.drills.inc({ result: passed ? "passed" : "failed" });
    if (passed) this.lastDrillSuccessAt = Math.max(this.lastDrillSuccessAt ?? 0, startedAt);
  }

  /** Sets the last passing drill's time as read from the store at start. */
  setLastDrillSuccess(at: number | null): void {
    if (at !== null) this.lastDrillSuccessAt = Math.max(this.lastDrillSuccessAt ?? 0, at);
  }

  /**
   * Reads the store's backlog gauges; done before rendering and by the alert evaluator. One read
   * at a time: while the store hangs, scrapes do not pile a query each onto its pool.
   */
  refresh(): Promise<BacklogSnapshot> {
    this.reading ??= this.deps.store
      .backlogSnapshot({
        now: this.deps.clock.now(),
        endpointLimit: this.deps.settings.maxEndpoints,
      })
      .then((s) => this.withWaiting(s))
      .finally(() => (this.reading = null));
    return this.reading;
  }

  /**
   * The backlog with the deliveries this process holds waiting for an endpoint's slot: claimed,
   * they are no longer pending in the store, yet due and not yet sent. Behind a slow endpoint at
   * its concurrency limit they may wait for minutes, and that is lag (queue_lag) too.
   */
  private withWaiting(s: BacklogSnapshot): BacklogSnapshot {
    const held = this.deps.engine.deliveryBudget()?.oldestWaitingDueAt ?? null;
    if (held === null || (s.oldestDueAt !== null && s.oldestDueAt <= held)) return s;
    return { ...s, oldestDueAt: held };
  }

  /**
   * The Prometheus text exposition, with fresh gauges. A store that fails or does not answer
   * within PROBE_WAIT_MS leaves out the gauges read from it (`hookline_store_up` 0), not
   * the page: during a database outage the counters and the engine's gauges are what operators
   * need.
   */
  async render(): Promise<string> {
    const read = this.refresh();
    // Within the same wait; stored circuits and disabled endpoints it cannot read again are shown
    // as they were.
    const recheck = this.stored.recheck().catch(() => {});
    let shown: BacklogSnapshot | null = null;
    try {
      if (await finishedWithin(PROBE_WAIT_MS, Promise.all([read, recheck]))) {
        shown = await read;
      }
    } catch {
      // The store is unavailable: hookline_store_up says so, and the store's own errors are
      // logged where they happen (the engine, the API).
    }
    this.shown = shown;
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  // ---- gauges read at scrape time ----------------------------------------------------------

  private defineGauges(): void {
    // The gauges' collect hooks have prom-client's metric as `this`; they read ours from here.
    const self = this; // eslint-disable-line @typescript-eslint/no-this-alias
    const age = (at: number | null | undefined) =>
      at == null ? 0 : Math.max(0, (self.deps.clock.now() - at) / 1000);
    // The store's gauges are left out of a scrape that could not read the store.
    const stored = (fill: (g: Gauge<string>, s: BacklogSnapshot) => void) => (g: Gauge<string>) => {
      if (self.shown) fill(g, self.shown);
    };
    this.gauge(
      "hookline_store_up",
      "1 when this scrape read the store's gauges (queue, dead-letter queue), 0 when it could not",
      [],
      (g) => g.set(self.shown ? 1 : 0),
    );
    this.gauge(
      "hookline_queue_pending_deliveries",
      "Pending deliveries, due or not",
      [],
      stored((g, s) => g.set(s.pending)),
    );
    this.gauge(
      "hookline_queue_lag_seconds",
      "Age of the oldest delivery that is due but not yet sent",
      [],
      stored((g, s) => g.set(age(s.oldestDueAt))),
    );
    this.gauge(
      "hookline_dlq_depth",
      "Open and replaying dead-letter records",
      [],
      stored((g, s) => g.set(s.deadLetters)),
    );
    this.gauge(
      "hookline_dlq_oldest_age_seconds",
      "Age of the oldest open or replaying dead-letter record",
      [],
      stored((g, s) => g.set(age(s.oldestDeadLetterAt))),
    );
    this.gauge(
      "hookline_dlq_endpoint_depth",
      "Open and replaying dead-letter records of the deepest endpoints; the rest under _other",
      ["endpoint"],
      stored((g, s) => {
        let listed = 0;
        for (const r of s.byEndpoint) {
          g.set({ endpoint: r.endpointId }, r.deadLetters);
          listed += r.deadLetters;
        }
        if (s.deadLetters > listed) g.set({ endpoint: OTHER_ENDPOINTS }, s.deadLetters - listed);
      }),
    );
    this.gauge(
      "hookline_dlq_endpoint_oldest_age_seconds",
      "Age of the oldest open or replaying dead-letter record of the deepest endpoints",
      ["endpoint"],
      stored((g, s) => {
        for (const r of s.byEndpoint) g.set({ endpoint: r.endpointId }, age(r.oldestDeadLetterAt));
      }),
    );
    const live = (name: string, help: string, pick: (id: string) => number | null) =>
      this.gauge(name, help, ["endpoint"], (g) => {
        for (const id of self.slots.tracked()) {
          const v = pick(id);
          if (v !== null) g.set({ endpoint: id }, v);
        }
      });
    const status = (id: string) => self.deps.engine.endpointStatus(id);
    live("hookline_endpoint_concurrency_limit", "Configured concurrency limit", (id) => {
      return status(id)?.limit ?? null;
    });
    live(
      "hookline_endpoint_effective_limit",
      "Concurrency limit after slow-endpoint rule",
      (id) => {
        return status(id)?.effectiveLimit ?? null;
      },
    );
    live("hookline_endpoint_in_flight", "Requests in flight", (id) => status(id)?.inFlight ?? null);
    live("hookline_endpoint_queued", "Deliveries claimed and waiting for a slot", (id) => {
      return status(id)?.queued ?? null;
    });
    this.gauge(
      "hookline_circuit_state",
      "1 for the endpoint's current circuit state (closed, open, half-open)",
      ["endpoint", "state"],
      (g) => {
        for (const id of self.slots.tracked()) {
          const shown = self.stored.circuitShown(id);
          if (!shown) continue;
          for (const state of ["closed", "open", "half-open"]) {
            g.set({ endpoint: id, state }, shown === state ? 1 : 0);
          }
        }
      },
    );
    this.gauge(
      "hookline_endpoint_disabled",
      "1 for each endpoint with series of its own that is disabled, as read at the last scrape " +
        "that could read the store; absent for the others",
      ["endpoint"],
      (g) => {
        for (const id of self.stored.disabled()) g.set({ endpoint: id }, 1);
      },
    );
    const budget = (pick: (b: DeliveryBudget) => number) => (g: Gauge<string>) => {
      const b = self.deps.engine.deliveryBudget();
      if (b) g.set(pick(b));
    };
    this.gauge(
      "hookline_deliveries_held",
      "Deliveries this process holds: in flight or waiting for an endpoint's slot",
      [],
      budget((b) => b.held),
    );
    this.gauge(
      "hookline_delivery_budget",
      "Deliveries this process may hold now; drops while its event loop lags or API callers wait",
      [],
      budget((b) => b.limit),
    );
    this.gauge(
      "hookline_delivery_pace",
      "Deliveries a second this process may start now, while API callers wait for their commits; +Inf: unpaced",
      [],
      budget((b) => b.pace),
    );
    this.gauge("hookline_retry_ratio", "Retries scheduled per first attempt since start", [], (g) =>
      g.set(self.tally.retryRatio()),
    );
    this.gauge(
      "hookline_drill_last_success_timestamp_seconds",
      "Start of the last passing failure drill (0: none yet)",
      [],
      (g) => g.set((self.lastDrillSuccessAt ?? 0) / 1000),
    );
    this.gauge(
      "hookline_metrics_tracked_endpoints",
      "Endpoints with series of their own",
      [],
      (g) => g.set(self.slots.size),
    );
  }

  private gauge(
    name: string,
    help: string,
    labelNames: string[],
    fill: (g: Gauge<string>) => void,
  ): Gauge<string> {
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        // prom-client resets a gauge without labels to 0; a gauge `fill` leaves unset is absent
        // instead (nothing delivers here, or the store could not be read), never a made-up 0.
        if (labelNames.length === 0) this.remove();
        fill(this);
      },
    });
  }

  // ---- per-endpoint series -----------------------------------------------------------------

  /** The endpoint label to count an event of `endpointId` under. */
  private label(endpointId: string, now: number): string {
    if (this.deleted.get(endpointId, now)) return OTHER_ENDPOINTS;
    return this.slots.label(endpointId, now);
  }

  private counter(name: string, help: string, labelNames: string[]): Counter<string> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private inc(c: Counter<string>, labels: Record<string, string>): void {
    c.inc(labels);
    if (labels.endpoint) this.remember(labels.endpoint, c, labels);
  }

  private remember(
    endpoint: string,
    metric: Counter<string> | Histogram<string>,
    labels: Record<string, string>,
  ): void {
    if (endpoint === OTHER_ENDPOINTS || endpoint === DRILL_ENDPOINTS) return;
    let own = this.series.get(endpoint);
    if (!own) this.series.set(endpoint, (own = new Map()));
    let ofMetric = own.get(metric);
    if (!ofMetric) own.set(metric, (ofMetric = new Map()));
    // Every per-endpoint metric has at most one label besides the endpoint.
    let other = "";
    for (const name in labels) if (name !== "endpoint") other = labels[name]!;
    if (!ofMetric.has(other)) ofMetric.set(other, () => metric.remove(labels));
  }

  /** Removes the series of an endpoint that lost its slot. */
  private forget(endpoint: string): void {
    this.stored.forget(endpoint);
    for (const ofMetric of this.series.get(endpoint)?.values() ?? []) {
      for (const remove of ofMetric.values()) remove();
    }
    this.series.delete(endpoint);
  }
}
