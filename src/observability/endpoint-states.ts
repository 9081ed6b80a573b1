/**
 * What /metrics shows of endpoints with a slot as the store has them, not as the engine holds
 * them: circuits not closed that the engine does not hold (after a restart, or once a worker let
 * go of the endpoint), and which endpoints are disabled. Read again at each scrape: a person may
 * disable an endpoint through another process, and the engine reads an endpoint's settings again
 * only before its next delivery, which behind an open circuit is the probe.
 */
import type { Clock } from "../clock.js";
import type { CircuitRecord } from "../domain/types.js";
import type { CircuitState } from "../engine/breaker.js";
import type { EngineControl } from "../engine/control.js";
import type { EndpointStopped, Store } from "../store/port.js";
import type { EndpointSlots } from "./endpoint-slots.js";

/** What {@link StoredEndpointStates} reads, passed in by the metrics that own it. */
export interface StoredEndpointDeps {
  store: Store;
  engine: EngineControl;
  clock: Clock;
  slots: EndpointSlots;
  /** Endpoints with series of their own (HOOKLINE_METRICS_MAX_ENDPOINTS). */
  maxEndpoints: number;
  /** Whether the endpoint was deleted lately (its events are counted under `_other`). */
  deletedLately: (endpointId: string, now: number) => boolean;
}

/** The stored state of endpoints with a slot, as the metrics show it; see the module comment. */
export class StoredEndpointStates {
  /**
   * Circuits not closed, by endpoint with a slot, shown while the engine holds no live state of
   * the endpoint: found in the store at start or at a scrape (see {@link showStoredCircuits}), or
   * left open by this engine's last transition. On PostgreSQL a worker lets go of an endpoint idle
   * for 10 s, open circuit or not (its deliveries wait in the database for the probe), and an
   * alert on open circuits must not go quiet then. Read again from the store at each scrape until
   * closed.
   */
  private readonly circuits = new Map<string, CircuitState>();
  /**
   * Endpoints with a circuit not closed whose series of it are left out: disabled ones (nothing is
   * sent to them, and someone chose that; hookline's own `endpoint_failing` skips them too), or
   * gone. Read again at each scrape, so one enabled again is shown again.
   */
  private circuitsHidden = new Set<string>();
  /**
   * Endpoints with a slot found disabled by the last scrape that could read the store; shown as
   * `hookline_endpoint_disabled`, which the shipped HooklineEndpointFailing joins on to leave
   * them out, as hookline's own `endpoint_failing` does. Kept as it was while the store cannot be
   * read: a disabled endpoint does not turn failing again for the length of an outage.
   */
  private disabledNow = new Set<string>();
  /** Whether stored circuits are shown (see {@link showStoredCircuits}): processes that deliver. */
  private showsStored = false;
  /**
   * Rechecks started, and the latest whose stopped endpoints, and whose circuits, were taken. A
   * read a scrape stopped waiting for goes on, and on a slow store may answer after a newer one:
   * its answer is taken only if no later one was, or it would put back what the store said before.
   */
  private rechecks = 0;
  private stoppedTaken = 0;
  private circuitsTaken = 0;

  constructor(private readonly deps: StoredEndpointDeps) {}

  /**
   * Shows the stored state of circuits not closed, read once at start: the engine knows an
   * endpoint only once something happens to it, and an open circuit's probe may be an hour away,
   * so after a restart its state would be missing just when alerts on open circuits need it. Each
   * takes a slot while one is free, the most recently changed first; the engine's live state takes
   * over once it has the endpoint.
   */
  async showStoredCircuits(): Promise<void> {
    const max = this.deps.maxEndpoints;
    if (max <= 0) return;
    this.showsStored = true;
    this.adopt(await this.deps.store.listUnclosedCircuits(max));
  }

  /** A circuit transition, counted under `label`: kept for when the engine lets go of it. */
  transitioned(endpointId: string, label: string, to: CircuitState): void {
    if (label !== endpointId || to === "closed") this.circuits.delete(endpointId);
    else this.circuits.set(endpointId, to);
  }

  /** The endpoint was deleted, or lost its slot. */
  forget(endpointId: string): void {
    this.circuits.delete(endpointId);
  }

  /** The circuit state to show of an endpoint with a slot (live or stored), or null: none. */
  circuitShown(endpointId: string): CircuitState | null {
    const state =
      this.deps.engine.endpointStatus(endpointId)?.circuit.state ?? this.circuits.get(endpointId);
    if (!state || (state !== "closed" && this.circuitsHidden.has(endpointId))) return null;
    return state;
  }

  /** The endpoints with a slot that are disabled, as last read. */
  *disabled(): Generator<string> {
    for (const id of this.disabledNow) if (this.deps.slots.has(id)) yield id;
  }

  /**
   * Reads which endpoints with a slot are disabled or gone (one read, whatever their number), and
   * then the circuits shown not closed (see {@link recheckCircuits}).
   */
  async recheck(): Promise<void> {
    const seq = ++this.rechecks;
    const tracked = [...this.deps.slots.tracked()];
    const stopped: Map<string, EndpointStopped> = tracked.length
      ? await this.deps.store.listStoppedEndpoints(tracked)
      : new Map();
    if (seq < this.stoppedTaken) return;
    this.stoppedTaken = seq;
    const disabled = new Set<string>();
    for (const [id, why] of stopped) if (why === "disabled") disabled.add(id);
    this.disabledNow = disabled;
    await this.recheckCircuits(seq, tracked, stopped);
  }

  /**
   * Gives a slot, while one is free, to each circuit listed that this process does not show yet
   * and whose endpoint the engine does not hold, and shows its stored state. At start, and again
   * at each scrape: an endpoint disabled at start is not listed then, and once enabled again its
   * circuit, open for an hour perhaps before its probe, must be shown from the next scrape on.
   */
  private adopt(found: { endpointId: string; circuit: CircuitRecord }[]): void {
    const { slots, engine } = this.deps;
    const now = this.deps.clock.now();
    // Oldest first, so the slots keep the most recently changed longest.
    for (let i = found.length - 1; i >= 0; i--) {
      const { endpointId, circuit } = found[i]!;
      if (this.deps.deletedLately(endpointId, now) || slots.has(endpointId)) continue;
      if (engine.endpointStatus(endpointId)) continue;
      if (slots.label(endpointId, now) !== endpointId) continue;
      this.circuits.set(endpointId, circuit.state);
    }
  }

  /**
   * Reads again from the store the circuits shown not closed, and shows those found not shown yet
   * (see {@link adopt}). Those the engine does not hold (see {@link circuits}) are dropped once
   * closed: another worker of a fleet may have closed one, and this process would not hear of it;
   * those it holds are shown live, kept up to date by its transitions. Either kind is left out
   * while its endpoint is disabled or gone, as `stopped` says (see {@link circuitsHidden}).
   */
  private async recheckCircuits(
    seq: number,
    tracked: readonly string[],
    stopped: ReadonlyMap<string, EndpointStopped>,
  ): Promise<void> {
    const live = (id: string) => this.deps.engine.endpointStatus(id)?.circuit.state;
    const down = tracked.filter(
      (id) => (live(id) ?? this.circuits.get(id) ?? "closed") !== "closed",
    );
    if (down.length === 0 && !this.showsStored) {
      this.circuitsTaken = seq;
      this.circuitsHidden = new Set();
      return;
    }
    const limit = this.deps.maxEndpoints;
    const found = await this.deps.store.listUnclosedCircuits(limit);
    const listed = new Map(found.map((r) => [r.endpointId, r.circuit]));
    // Not listed: disabled or gone, left out of a full list for newer ones, or opened by the
    // engine here and not saved yet. The read of stopped endpoints tells which; in a full list,
    // those it does not explain are read one by one.
    const readAlone = new Map<string, CircuitRecord | null>();
    if (found.length === limit) {
      for (const id of down) {
        if (listed.has(id) || stopped.has(id)) continue;
        readAlone.set(id, await this.deps.store.getCircuit(id));
      }
    }
    if (seq < this.circuitsTaken) return;
    this.circuitsTaken = seq;
    if (this.showsStored) this.adopt(found);
    const hidden = new Set<string>();
    for (const id of down) {
      const why = listed.has(id) ? undefined : stopped.get(id);
      if (why) {
        hidden.add(id);
        if (why === "deleted") this.circuits.delete(id);
        continue;
      }
      // Unless the engine took it up meanwhile, or it lost its slot, while this read.
      if (!this.circuits.has(id) || this.deps.engine.endpointStatus(id)) continue;
      const c = listed.get(id) ?? readAlone.get(id) ?? null;
      if (c && c.state !== "closed") this.circuits.set(id, c.state);
      else this.circuits.delete(id);
    }
    this.circuitsHidden = hidden;
  }
}
