/**
 * The part of the storage port that lets several worker processes share one database: who is
 * alive, which worker owns which endpoint, and signals between processes. A store that serves a
 * single process (SQLite) has none, and the engine then runs alone.
 */

/** A message from one hookline process to the others sharing the database. */
export type Signal =
  /** Deliveries were committed due at `dueAt` (new messages, resends, replays). */
  | { kind: "wake"; dueAt: number }
  /** An endpoint's settings changed or it was deleted. */
  | { kind: "endpoint"; id: string }
  /** An application's delivery policy changed. */
  | { kind: "app"; id: string }
  /** These endpoints lost their owner: any worker may take them (and their backlog) now. */
  | { kind: "released"; endpointIds: string[] };

/** A worker's view of the fleet, as of its latest heartbeat. */
export interface Heartbeat {
  /** False when other workers declared this one dead and took its work: it must start over. */
  alive: boolean;
  /** Workers alive now, this one included. */
  liveWorkers: number;
  /** Endpoints owned by any live worker, and those in transit (see `heartbeat`), once each. */
  ownedTotal: number;
  /** Endpoints owned by this worker. */
  ownedByMe: number;
  /** Endpoints handed back by this heartbeat that have deliveries due: someone should take them. */
  releasedWithWork: string[];
}

/** What reaping dead workers freed. */
export interface Reaped {
  workers: string[];
  /** Endpoints the dead workers owned; their deliveries may be claimed by others now. */
  endpointIds: string[];
  /** Claimed deliveries put back to pending. */
  deliveries: number;
}

/** A worker's claim identity: claims take only endpoints it owns or may now own. */
export interface ClaimingWorker {
  id: string;
  /**
   * An ownership row newer than this is never taken, even if its worker is not in the claim's
   * snapshot (it may have joined as the claim ran). An owner is dead, and its endpoints free, once
   * a reaping has removed it, however long it has been silent before.
   */
  deadBefore: number;
  /**
   * Told of endpoints whose due rows this claim passed over because another worker took the
   * endpoint in the same moment (that worker may have skipped the rows this claim held).
   */
  onContended(endpointIds: string[]): void;
}

export interface WorkerCoordination {
  /** Registers a worker as alive. */
  register(worker: { id: string; role: string; host: string; now: number }): Promise<void>;
  /**
   * Says the worker is alive and gives up ownership of `release` (endpoints it has no work for,
   * or more than its share); reports the fleet.
   */
  heartbeat(req: {
    id: string;
    now: number;
    deadBefore: number;
    release: readonly string[];
    /**
     * Endpoints this worker handed to others lately, this heartbeat's hand-overs among them.
     * Until a live worker takes one it still counts in `ownedTotal`: it is work on its way to
     * an owner, and leaving it out would shrink every worker's share, so that a worker that had
     * just handed over its excess would hand over more.
     */
    inTransit: readonly string[];
  }): Promise<Heartbeat>;
  /**
   * Removes workers whose heartbeat is older than `deadBefore`, frees their endpoints and puts
   * their claimed deliveries (and any claimed by no worker) back to pending, due at once.
   */
  reap(now: number, deadBefore: number): Promise<Reaped>;
  /**
   * Endpoints with deliveries due by `now` that no worker owns (at most `limit`): work that every
   * worker's scan may have stepped past, found through each endpoint's own index. A silent
   * worker's endpoints are not among them until a reaping has declared it dead.
   */
  orphans(now: number, limit: number): Promise<string[]>;
  /**
   * Endpoints this worker owns that have deliveries due by `now`, found through each endpoint's
   * own index: the heartbeat's fallback look for work no signal announced. Its cost follows the
   * worker's endpoints, never a backlog (its own, or the rows of endpoints others own).
   */
  dueOwned(workerId: string, now: number): Promise<string[]>;
  /**
   * Makes the endpoint the worker's own now, whether or not anything of it is due, unless another
   * worker not declared dead owns it; whether it is the worker's. A failure drill takes its
   * endpoint so: its receiver listens on its own process's loopback, which no other worker can
   * reach.
   */
  take(req: { id: string; endpointId: string; now: number; deadBefore: number }): Promise<boolean>;
  /** A clean stop: frees the worker's endpoints and removes it; returns the endpoints freed. */
  unregister(id: string): Promise<string[]>;
  /** Sends signals to every other process sharing the database. */
  publish(from: string, signals: readonly Signal[]): Promise<void>;
  /**
   * Listens for other processes' signals. `onGap` runs when signals may have been missed (the
   * listening connection was lost and is back), so the listener can look again at whatever they
   * would have told it (due work, changed settings). `self` is asked at each signal: a worker
   * declared dead joins again under a new id, and its signals carry that one. Returns a stopper.
   */
  subscribe(
    self: () => string,
    onSignals: (signals: Signal[]) => void,
    onGap: () => void,
  ): Promise<() => Promise<void>>;
}
