/**
 * A loopback receiver for a fleet of hookline processes: besides what each request carried, it
 * knows which process sent it (the process holding the connection's other end, found in /proc
 * as the connection is accepted), and counts the requests open on each path — from arrival
 * until answered, or until it learns that their connection closed. (A process killed with
 * SIGKILL has its connections closed by the kernel, but Node's HTTP server mostly learns of it
 * only as it answers: a killed sender's requests stay open until then, as at most receivers.)
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface FleetRequest {
  path: string;
  msgId: string;
  /** The `i` of the message's payload. */
  i: number;
  /** How many requests for this message reached this path before this one. */
  nth: number;
  /** The sending process, or null when it had died before its connection was looked up. */
  pid: number | null;
  at: number;
  /** When it was answered, or when its connection closed unanswered; null while open. */
  endedAt: number | null;
  /** The status it was answered with: null while open, or when its connection closed first. */
  status: number | null;
}

/** A request that arrived while other processes had requests open on its path. */
export interface SharedPath {
  path: string;
  pids: (number | null)[];
  at: number;
}

export type FleetBehaviour = (req: FleetRequest) => { status: number; delayMs: number };

export class FleetReceiver {
  readonly requests: FleetRequest[] = [];
  readonly shared: SharedPath[] = [];
  private readonly open = new Map<string, Set<FleetRequest>>();
  private readonly maxOpen = new Map<string, number>();
  private readonly senders = new WeakMap<Socket, number | null>();
  private readonly seen = new Map<string, number>();

  private constructor(
    private readonly server: Server,
    private readonly behaviour: FleetBehaviour,
  ) {}

  /** Its senders must be children of this process (hookline processes a test started). */
  static async start(behaviour: FleetBehaviour): Promise<FleetReceiver> {
    let self: FleetReceiver | null = null;
    const server = createServer((req, res) => void self!.handle(req, res));
    server.keepAliveTimeout = 60_000;
    self = new FleetReceiver(server, behaviour);
    server.on("connection", (socket: Socket) => {
      self!.senders.set(socket, processAtOtherEnd(socket));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return self;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** The most requests this path held open at the same moment. */
  maxOpenOn(path: string): number {
    return this.maxOpen.get(path) ?? 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    try {
      for await (const c of req) chunks.push(c as Buffer);
    } catch {
      return; // its sender died while sending it: it never arrived whole
    }
    const path = (req.url ?? "/").split("?")[0]!;
    const msgId = String(req.headers["webhook-id"] ?? "");
    const key = `${path} ${msgId}`;
    const nth = this.seen.get(key) ?? 0;
    this.seen.set(key, nth + 1);
    const r: FleetRequest = {
      path,
      msgId,
      i: Number((JSON.parse(Buffer.concat(chunks).toString() || "{}") as { i?: number }).i),
      nth,
      pid: this.senders.get(req.socket) ?? null,
      at: Date.now(),
      endedAt: null,
      status: null,
    };
    this.requests.push(r);
    const open = this.open.get(path) ?? new Set();
    this.open.set(path, open);
    const others = [...open].filter((o) => o.pid !== r.pid).map((o) => o.pid);
    if (others.length) this.shared.push({ path, pids: [r.pid, ...new Set(others)], at: r.at });
    open.add(r);
    this.maxOpen.set(path, Math.max(this.maxOpenOn(path), open.size));
    const end = () => {
      if (!open.delete(r)) return;
      r.endedAt = Date.now();
    };
    // 'close' comes once the answer is out, or once the server notices the connection went.
    res.on("close", end);
    const reply = this.behaviour(r);
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed || r.endedAt !== null) return;
    r.status = reply.status;
    res.writeHead(reply.status);
    res.end();
  }
}

/**
 * Which child of this process holds the client end of an accepted loopback connection: the
 * connection's socket inode from /proc/net/tcp, then the child whose descriptors include it.
 * Linux only. Children only: looking through every process on a busy machine took long enough
 * to hold up the receiver's answers.
 */
function processAtOtherEnd(socket: Socket): number | null {
  const hex = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const local = hex(socket.remotePort!);
  const remote = hex(socket.localPort!);
  let inode = "";
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n")) {
    const f = line.trim().split(/\s+/);
    // A connection closed earlier between the same ports may linger (TIME_WAIT), with inode 0.
    if (f[1] === local && f[2] === remote && f[9] !== "0") inode = f[9]!;
  }
  if (!inode) return null;
  const target = `socket:[${inode}]`;
  for (const pid of children()) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

/** This process's children, whichever of its threads started them. */
function children(): number[] {
  return readdirSync(`/proc/${process.pid}/task`).flatMap((tid) => {
    try {
      const list = readFileSync(`/proc/${process.pid}/task/${tid}/children`, "utf8").trim();
      return list ? list.split(" ").map(Number) : [];
    } catch {
      return []; // the thread ended
    }
  });
}

/** A recorded attempt as the API lists it: when it was made, and the status it recorded. */
export interface RecordedAttempt {
  at: number;
  status: number;
}

/**
 * Pairs each recorded attempt of one message to one endpoint with the request it made: the
 * earliest unpaired request that arrived at or after the attempt's time (hookline takes it as it
 * signs, just before sending) and was answered with the status recorded. What is left over:
 * attempts no such request made, and requests no attempt records.
 */
export function pairAttempts<A extends RecordedAttempt>(
  requests: readonly FleetRequest[],
  attempts: readonly A[],
): { unmade: A[]; unrecorded: FleetRequest[] } {
  const left = [...requests].sort((a, b) => a.at - b.at);
  const unmade: A[] = [];
  for (const a of [...attempts].sort((x, y) => x.at - y.at)) {
    const i = left.findIndex((r) => r.at >= a.at && r.status === a.status);
    if (i < 0) unmade.push(a);
    else left.splice(i, 1);
  }
  return { unmade, unrecorded: left };
}
