/**
 * Several worker processes on one PostgreSQL: heartbeats, endpoint ownership and LISTEN/NOTIFY.
 * See docs/architecture.md ("Several processes") for why endpoints have owners.
 */
import type pg from "pg";
import type { Heartbeat, Reaped, Signal, WorkerCoordination } from "../coordination.js";
import { all, exec, one, tx } from "./database.js";
import { OWNER_DEAD, REGISTERED } from "./statements.js";

/** NOTIFY payloads must stay under 8,000 bytes; signals are split to fit. */
const MAX_PAYLOAD = 7_000;

const SQL = {
  register: `INSERT INTO workers (id, role, host, started_at, heartbeat_at)
    VALUES ($1, $2, $3, $4, $4)`,
  // The heartbeat and the release in one statement; `alive` is false if this worker was reaped.
  heartbeat: `WITH me AS (
      UPDATE workers SET heartbeat_at = $2 WHERE id = $1 RETURNING id
    ), freed AS (
      DELETE FROM endpoint_owners WHERE worker_id = $1 AND endpoint_id = ANY($4::text[])
      RETURNING endpoint_id
    )
    SELECT EXISTS (SELECT 1 FROM me) AS alive,
      (SELECT count(*) FROM workers WHERE heartbeat_at >= $3 OR id = $1) AS live,
      -- Every part of the statement sees the tables as they were before it, so what this
      -- heartbeat frees is taken off the counts; endpoints in transit count once, taken or not.
      (SELECT count(*) FROM (
        SELECT o.endpoint_id FROM endpoint_owners o JOIN workers w ON w.id = o.worker_id
        WHERE (w.heartbeat_at >= $3 OR w.id = $1)
          AND NOT (o.worker_id = $1 AND o.endpoint_id = ANY($4::text[]))
        UNION SELECT unnest($5::text[])) counted) AS owned_total,
      (SELECT count(*) FROM endpoint_owners WHERE worker_id = $1)
        - (SELECT count(*) FROM freed) AS owned_by_me,
      (SELECT coalesce(array_agg(f.endpoint_id), '{}') FROM freed f WHERE EXISTS (
        SELECT 1 FROM deliveries d WHERE d.endpoint_id = f.endpoint_id AND d.state = 'pending'
          AND d.next_attempt_at <= $2)) AS with_work`,
  // Whoever deletes a dead worker's row (one reaper wins) frees what it held, in a statement of
  // its own that comes after (see `reap`).
  reapWorkers: "DELETE FROM workers WHERE heartbeat_at < $1 RETURNING id",
  reapHoldings: `WITH freed AS (
      DELETE FROM endpoint_owners o
      WHERE NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = o.worker_id)
      RETURNING o.endpoint_id
    ), back AS (
      UPDATE deliveries SET state = 'pending', lease_until = NULL, claimed_by = NULL,
        next_attempt_at = LEAST(next_attempt_at, $1)
      WHERE state = 'inflight'
        AND (claimed_by IS NULL
          OR NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = deliveries.claimed_by))
      RETURNING id
    )
    SELECT coalesce((SELECT array_agg(endpoint_id) FROM freed), '{}') AS endpoints,
      (SELECT count(*) FROM back) AS deliveries`,
  // One probe of the pending-by-endpoint index per endpoint without an owner (or with one
  // declared dead: its worker's row gone), the endpoints a claim may take: the cost follows the
  // number of endpoints, never the backlog.
  orphans: `SELECT e.id FROM endpoints e
    WHERE NOT EXISTS (SELECT 1 FROM endpoint_owners o JOIN workers w ON w.id = o.worker_id
        WHERE o.endpoint_id = e.id)
      AND EXISTS (SELECT 1 FROM deliveries d WHERE d.endpoint_id = e.id AND d.state = 'pending'
        AND d.next_attempt_at <= $1)
    LIMIT $2`,
  // One probe of the pending-by-endpoint index per endpoint the worker owns.
  dueOwned: `SELECT o.endpoint_id FROM endpoint_owners o
    WHERE o.worker_id = $1
      AND EXISTS (SELECT 1 FROM deliveries d WHERE d.endpoint_id = o.endpoint_id
        AND d.state = 'pending' AND d.next_attempt_at <= $2)`,
  // As a claim takes an endpoint (statements.ts), without a due row to take it with.
  take: `INSERT INTO endpoint_owners (endpoint_id, worker_id, since)
    SELECT $2, $1, $3 WHERE ${REGISTERED("$1")}
    ON CONFLICT (endpoint_id) DO UPDATE SET worker_id = excluded.worker_id,
      since = CASE WHEN endpoint_owners.worker_id = excluded.worker_id
        THEN endpoint_owners.since ELSE excluded.since END
    WHERE endpoint_owners.worker_id = excluded.worker_id OR ${OWNER_DEAD("$4")}
    RETURNING endpoint_id`,
  unregister: `WITH freed AS (
      DELETE FROM endpoint_owners WHERE worker_id = $1 RETURNING endpoint_id
    ), gone AS (DELETE FROM workers WHERE id = $1)
    SELECT coalesce(array_agg(endpoint_id), '{}') AS endpoints FROM freed`,
} as const;

interface Envelope {
  from: string;
  signals: Signal[];
}

/** The PostgreSQL implementation of {@link WorkerCoordination}. */
export class PostgresCoordination implements WorkerCoordination {
  private readonly channel: string;
  /** The store's pool: signals go out through it, as many as the API raises. */
  private readonly pool: pg.Pool;
  /** Connections of the fleet's own, for its heartbeats and what each beat does (see store.ts). */
  private readonly fleetPool: pg.Pool;
  private readonly connect: () => pg.Client;
  /** Ends a LISTEN connection, destroying it if its server does not answer the goodbye. */
  private readonly end: (client: pg.Client) => Promise<void>;
  /** The store's wrapper: migrates on first use and maps driver errors. */
  private readonly run: <T>(fn: () => Promise<T>) => Promise<T>;

  constructor(deps: {
    pool: pg.Pool;
    fleetPool: pg.Pool;
    connect: () => pg.Client;
    end: (client: pg.Client) => Promise<void>;
    schema: string;
    run: <T>(fn: () => Promise<T>) => Promise<T>;
  }) {
    this.pool = deps.pool;
    this.fleetPool = deps.fleetPool;
    this.connect = deps.connect;
    this.end = deps.end;
    this.run = deps.run;
    // One channel per schema: two hooklines in one database never hear each other.
    this.channel = `hookline_${deps.schema}`;
  }

  async register(w: { id: string; role: string; host: string; now: number }): Promise<void> {
    await this.run(() => exec(this.fleetPool, SQL.register, [w.id, w.role, w.host, w.now]));
  }

  async heartbeat(req: {
    id: string;
    now: number;
    deadBefore: number;
    release: readonly string[];
    inTransit: readonly string[];
  }): Promise<Heartbeat> {
    const params = [req.id, req.now, req.deadBefore, [...req.release], [...req.inTransit]];
    const row = (await this.run(() => one(this.fleetPool, SQL.heartbeat, params)))!;
    return {
      alive: Boolean(row.alive),
      liveWorkers: Number(row.live),
      ownedTotal: Number(row.owned_total),
      ownedByMe: Number(row.owned_by_me),
      releasedWithWork: (row.with_work as string[]).map(String),
    };
  }

  /**
   * Two statements in one transaction. A claim locks its worker's row (FOR KEY SHARE) as it
   * starts, so deleting the row waits for every claim of that worker under way, and one that
   * starts after finds no row and claims nothing. The claims that were under way are committed
   * by then, but a statement sees only what was committed when it began: the dead worker's
   * endpoints and deliveries are freed by the next statement, which sees them.
   */
  async reap(now: number, deadBefore: number): Promise<Reaped> {
    return this.run(() =>
      tx(this.fleetPool, async (c) => {
        const dead = await all(c, SQL.reapWorkers, [deadBefore]);
        const row = (await one(c, SQL.reapHoldings, [now]))!;
        return {
          workers: dead.map((r) => String(r.id)),
          endpointIds: (row.endpoints as string[]).map(String),
          deliveries: Number(row.deliveries),
        };
      }),
    );
  }

  async orphans(now: number, limit: number): Promise<string[]> {
    const rows = await this.run(() => all(this.fleetPool, SQL.orphans, [now, limit]));
    return rows.map((r) => String(r.id));
  }

  async dueOwned(workerId: string, now: number): Promise<string[]> {
    const rows = await this.run(() => all(this.fleetPool, SQL.dueOwned, [workerId, now]));
    return rows.map((r) => String(r.endpoint_id));
  }

  async take(req: {
    id: string;
    endpointId: string;
    now: number;
    deadBefore: number;
  }): Promise<boolean> {
    const params = [req.id, req.endpointId, req.now, req.deadBefore];
    return (await this.run(() => all(this.fleetPool, SQL.take, params))).length > 0;
  }

  async unregister(id: string): Promise<string[]> {
    const rows = await this.run(() => all(this.fleetPool, SQL.unregister, [id]));
    return ((rows[0]?.endpoints as string[] | undefined) ?? []).map(String);
  }

  async publish(from: string, signals: readonly Signal[]): Promise<void> {
    for (const payload of envelopes(from, signals)) {
      await this.run(() => this.pool.query("SELECT pg_notify($1, $2)", [this.channel, payload]));
    }
  }

  async subscribe(
    self: () => string,
    onSignals: (signals: Signal[]) => void,
    onGap: () => void,
  ): Promise<() => Promise<void>> {
    let stopped = false;
    let client: pg.Client | null = null;
    let retry: NodeJS.Timeout | null = null;
    let reconnecting = false;
    // One way back at a time: a failed connect reports itself twice (its rejection, then the
    // client's 'end'), and each used to start a loop of its own, so loops multiplied through an
    // outage and left as many LISTEN connections open after it.
    const retryLater = (): void => {
      if (stopped || retry || reconnecting) return;
      retry = setTimeout(() => void reconnect(), 1_000);
    };
    const drop = (c: pg.Client): void => {
      if (client !== c) return;
      client = null;
      c.removeAllListeners("notification");
      void this.end(c);
    };
    const listen = async (): Promise<void> => {
      const c = this.connect();
      client = c;
      const lost = () => {
        if (client !== c) return;
        drop(c);
        retryLater();
      };
      c.on("error", lost);
      c.on("end", lost);
      c.on("notification", (n) => {
        if (n.channel !== this.channel || !n.payload) return;
        const envelope = parse(n.payload);
        if (envelope && envelope.from !== self()) onSignals(envelope.signals);
      });
      try {
        await c.connect();
        await c.query(`LISTEN ${this.channel}`);
      } catch (err) {
        // A client that failed is closed here, whoever reported the failure first.
        drop(c);
        void this.end(c);
        throw err;
      }
    };
    const reconnect = async (): Promise<void> => {
      retry = null;
      if (stopped) return;
      reconnecting = true;
      try {
        await listen();
        // Whatever was sent while nobody listened is lost: the listener scans again.
        onGap();
      } catch {
        reconnecting = false;
        retryLater();
      } finally {
        reconnecting = false;
      }
    };
    // Through the store's wrapper: the schema (and so the channel's meaning) exists before anyone
    // listens, and a server gone since the store last answered is the store unavailable, as for
    // any statement, not the driver's own error.
    await this.run(listen);
    return async () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      if (c) await this.end(c);
    };
  }
}

/** Splits signals into NOTIFY payloads that fit, coalescing wake-ups into the earliest. */
function envelopes(from: string, signals: readonly Signal[]): string[] {
  const out: string[] = [];
  let wake: number | null = null;
  const rest: Signal[] = [];
  for (const s of signals) {
    if (s.kind === "wake") wake = wake === null ? s.dueAt : Math.min(wake, s.dueAt);
    else if (s.kind === "released") {
      // Endpoint ids are short; 100 of them keep a payload well under the limit.
      for (let i = 0; i < s.endpointIds.length; i += 100) {
        rest.push({ kind: "released", endpointIds: s.endpointIds.slice(i, i + 100) });
      }
    } else rest.push(s);
  }
  if (wake !== null) rest.unshift({ kind: "wake", dueAt: wake });
  let batch: Signal[] = [];
  let size = 0;
  for (const s of rest) {
    const len = JSON.stringify(s).length + 1;
    if (batch.length && size + len > MAX_PAYLOAD) {
      out.push(JSON.stringify({ from, signals: batch } satisfies Envelope));
      batch = [];
      size = 0;
    }
    batch.push(s);
    size += len;
  }
  if (batch.length) out.push(JSON.stringify({ from, signals: batch } satisfies Envelope));
  return out;
}

function parse(payload: string): Envelope | null {
  try {
    const e = JSON.parse(payload) as Envelope;
    return typeof e.from === "string" && Array.isArray(e.signals) ? e : null;
  } catch {
    return null;
  }
}
