/**
 * A loopback TCP proxy in front of PostgreSQL, so a test can take the database away from one
 * hookline (and give it back) without stopping the server other tests use: by cutting every
 * connection (the server restarted), or by black-holing them (the server's host vanished from the
 * network: connections stay open, and nothing comes back, not even a reset).
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";

/** A simple-protocol query message `COMMIT` as the PostgreSQL client sends it. */
const COMMIT_QUERY = Buffer.from("Q\0\0\0\x0bCOMMIT\0", "latin1");

/**
 * A request to hold wherever the client is when it makes it: the first chunk carrying `match` on
 * a connection that has sent `after` before it (any connection without), held with both ways of
 * that connection as {@link TcpProxy.holdNextCommit} holds a COMMIT.
 */
interface RequestTrap {
  match: Buffer;
  after: Buffer | null;
  held: () => void;
}

/** One direction of one proxied connection. */
interface Link {
  from: Socket;
  to: Socket;
  /** Bytes read from `from` and not passed on yet: held while the link or the proxy holds. */
  queue: Buffer[];
  held: boolean;
  /** What becomes of the next chunk this way: dropped with both sides cut, or held. */
  next: "lose" | "hold" | null;
}

export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly links = new Set<Link>();
  private commitTrap: "answer" | "request" | "hold-answer" | "hold-request" | null = null;
  private requestTrap: RequestTrap | null = null;
  private blackHoled = false;

  private constructor(
    private readonly target: { host: string; port: number },
    public port: number,
  ) {}

  /** Listens on a free loopback port, forwarding to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target, 0);
    await proxy.open();
    return proxy;
  }

  /** Listens again (on the same port once it has one) and forwards new connections. */
  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => s.destroy());
      }
      const up: Link = { from: client, to: upstream, queue: [], held: false, next: null };
      const down: Link = { from: upstream, to: client, queue: [], held: false, next: null };
      const cutBoth = () => {
        upstream.destroy();
        client.destroy();
      };
      // Since the request trap was set: the end of what the client sent (for a text split between
      // chunks), and whether it sent the trap's `after`.
      let trapSeen: RequestTrap | null = null;
      let before = Buffer.alloc(0);
      let afterSent = false;
      client.on("data", (chunk: Buffer) => {
        const request = this.requestTrap;
        if (request) {
          if (trapSeen !== request) {
            trapSeen = request;
            before = Buffer.alloc(0);
            afterSent = false;
          }
          const sent = Buffer.concat([before, chunk]);
          const tail = Math.max(request.match.length, request.after?.length ?? 0);
          before = sent.subarray(Math.max(0, sent.length - tail));
          if (afterSent || !request.after || sent.includes(request.after)) {
            // Searched past `after`'s first byte there: what it is held at comes after it.
            const from = afterSent || !request.after ? 0 : sent.indexOf(request.after) + 1;
            afterSent = true;
            if (sent.includes(request.match, from)) {
              this.requestTrap = null;
              up.held = down.held = true;
              this.pass(up, chunk);
              request.held();
              return;
            }
          }
        }
        const trap = this.commitTrap;
        if (trap && chunk.includes(COMMIT_QUERY)) {
          this.commitTrap = null;
          // The COMMIT never reaches the server.
          if (trap === "request") return cutBoth();
          if (trap === "hold-request") up.held = down.held = true;
          // The COMMIT goes through; the server's answer to it is lost or held.
          if (trap === "answer") down.next = "lose";
          if (trap === "hold-answer") down.next = "hold";
        }
        this.pass(up, chunk);
      });
      upstream.on("data", (chunk: Buffer) => {
        if (down.next === "lose") return cutBoth();
        if (down.next === "hold") {
          down.next = null;
          up.held = down.held = true;
        }
        this.pass(down, chunk);
      });
      for (const link of [up, down]) this.links.add(link);
      client.on("close", () => {
        upstream.destroy();
        this.links.delete(up);
      });
      upstream.on("close", () => {
        client.destroy();
        this.links.delete(down);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /**
   * The next COMMIT through the proxy reaches the server and only its answer is lost
   * (`"answer"`), or it never reaches the server (`"request"`); either way that connection is cut,
   * so the client cannot tell which.
   */
  loseNextCommit(lose: "answer" | "request"): void {
    this.commitTrap = lose;
  }

  /**
   * Like {@link loseNextCommit}, but that connection is not cut: it goes silent both ways, as if
   * the server's host had vanished at that moment, so the client waits for an answer that never
   * comes (until {@link forward}).
   */
  holdNextCommit(hold: "answer" | "request"): void {
    this.commitTrap = hold === "answer" ? "hold-answer" : "hold-request";
  }

  /**
   * Holds, as {@link holdNextCommit} `"request"` does, the first COMMIT a connection sends after
   * it sent `statement` (a statement's text): armed before the client gets there, it holds that
   * commit however late the test looks. Resolves once it is held.
   */
  holdCommitAfter(statement: string): Promise<void> {
    return this.holdRequest(COMMIT_QUERY, Buffer.from(statement));
  }

  /**
   * Holds the first request that carries `statement` (a statement's text) before it reaches the
   * server, and the connection both ways, until {@link forward}. Resolves once it is held.
   */
  holdStatement(statement: string): Promise<void> {
    return this.holdRequest(Buffer.from(statement), null);
  }

  private holdRequest(match: Buffer, after: Buffer | null): Promise<void> {
    return new Promise((held) => (this.requestTrap = { match, after, held }));
  }

  /**
   * The database's host vanishes without a word: open connections stay open but carry nothing
   * either way, and new ones are accepted but carry nothing either, until {@link forward}.
   */
  blackHole(): void {
    this.blackHoled = true;
  }

  /** The network is back: every byte held is passed on, in order, and traffic flows again. */
  forward(): void {
    this.blackHoled = false;
    for (const link of this.links) {
      link.held = false;
      this.pass(link);
    }
  }

  /** The database goes away: new connections are refused and open ones are cut. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }

  /** Passes `chunk` (and whatever was held before it) on, unless this link is held now. */
  private pass(link: Link, chunk?: Buffer): void {
    if (chunk) link.queue.push(chunk);
    if (this.blackHoled || link.held) {
      // Read no further: what is not read stays in the kernel's buffers, as on a dead route.
      link.from.pause();
      return;
    }
    for (const c of link.queue.splice(0)) link.to.write(c);
    link.from.resume();
  }
}
