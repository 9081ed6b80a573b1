/**
 * A loopback TCP proxy in front of PostgreSQL, so a test can take the database away from one
 * hookline (and give it back) without stopping the server other tests use.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";

/** A simple-protocol query message `COMMIT` as the PostgreSQL client sends it. */
const COMMIT_QUERY = Buffer.from("Q\0\0\0\x0bCOMMIT\0", "latin1");

export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private commitTrap: "answer" | "request" | null = null;

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
      // Before the pipe's own listener, so a COMMIT to lose is seen before it is forwarded.
      client.on("data", (chunk: Buffer) => {
        if (!this.commitTrap || !chunk.includes(COMMIT_QUERY)) return;
        const lose = this.commitTrap;
        this.commitTrap = null;
        if (lose === "request") {
          // The pipe's write of this chunk then goes to a destroyed socket: nothing is sent.
          upstream.destroy();
          client.destroy();
          return;
        }
        // The COMMIT goes through; the server's answer to it is dropped and both sides are cut.
        upstream.unpipe(client);
        upstream.once("data", () => {
          upstream.destroy();
          client.destroy();
        });
        upstream.resume();
      });
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
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

  /** The database goes away: new connections are refused and open ones are cut. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }
}
