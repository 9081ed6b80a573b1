/**
 * A real HTTP receiver on loopback for tests: records every request, answers as the test scripts
 * it (status, headers, delay), and measures how many requests it held at once.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  /** Answers only once this settles (after `delayMs`, if both): a request held as long as a test needs. */
  until?: Promise<unknown>;
}

export type Behaviour = (req: Received, index: number) => Reply;

export class Receiver {
  readonly requests: Received[] = [];
  maxConcurrent = 0;
  private current = 0;
  private behaviour: Behaviour = () => ({ status: 200, body: "ok" });
  private waiters: { n: number; path?: string; resolve: () => void }[] = [];
  private readonly perPath = new Map<string, number>();
  private readonly maxPerPath = new Map<string, number>();

  private constructor(private readonly server: Server) {}

  static async start(behaviour?: Behaviour): Promise<Receiver> {
    let self: Receiver | null = null;
    const server = createServer((req, res) => void self!.handle(req, res));
    server.keepAliveTimeout = 60_000;
    self = new Receiver(server);
    if (behaviour) self.behave(behaviour);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return self;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = "/"): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  behave(behaviour: Behaviour): void {
    this.behaviour = behaviour;
  }

  /** Requests received so far on one path. */
  on(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** The most requests this path held at the same moment. */
  maxConcurrentOn(path: string): number {
    return this.maxPerPath.get(path) ?? 0;
  }

  /** Resolves once `n` requests (on `path`, if given) have arrived. */
  waitFor(n: number, path?: string, timeoutMs = 20_000): Promise<void> {
    const count = () => (path ? this.on(path).length : this.requests.length);
    if (count() >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`receiver got ${count()} of ${n} requests${path ? ` on ${path}` : ""}`)),
        timeoutMs,
      );
      this.waiters.push({
        n,
        path,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? "/").split("?")[0]!;
    const received: Received = {
      path,
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [
          k,
          Array.isArray(v) ? v.join(", ") : (v ?? ""),
        ]),
      ),
      body: Buffer.concat(chunks),
      at: Date.now(),
    };
    const index = this.requests.length;
    this.requests.push(received);
    this.current++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.current);
    const onPath = (this.perPath.get(path) ?? 0) + 1;
    this.perPath.set(path, onPath);
    this.maxPerPath.set(path, Math.max(this.maxPerPath.get(path) ?? 0, onPath));
    this.notify();
    const reply = this.behaviour(received, index);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (reply.until) await reply.until.catch(() => {});
    this.current--;
    this.perPath.set(path, (this.perPath.get(path) ?? 1) - 1);
    if (res.destroyed) return;
    res.writeHead(reply.status, reply.headers);
    res.end(reply.body ?? "");
  }

  private notify() {
    this.waiters = this.waiters.filter((w) => {
      const count = w.path ? this.on(w.path).length : this.requests.length;
      if (count < w.n) return true;
      w.resolve();
      return false;
    });
  }
}

/** A loopback port nothing listens on: a connection to it is refused. */
export async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
