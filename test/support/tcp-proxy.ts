/**
 * A loopback TCP proxy in front of PostgreSQL, so a test can take the database away from one
 * hookline (and give it back) without stopping the server other tests use.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";

export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

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
      client.pipe(upstream).pipe(client);
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

  /** The database goes away: new connections are refused and open ones are cut. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }
}
