/**
 * A TCP proxy that holds every chunk for a while in each direction: a database on another
 * machine, for the PostgreSQL drain's "1 ms away" round. It runs in the bench's own process, so
 * the CPU it spends forwarding is on this machine's two cores too (noted with the figure).
 */
import net from "node:net";

export class DelayProxy {
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  /** Listens on a free loopback port and forwards each connection to `target`. */
  static async start(target: { host: string; port: number }, delayMs: number): Promise<DelayProxy> {
    let self: DelayProxy | null = null;
    const server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const s of [client, upstream]) self!.sockets.add(s);
      const forward = (from: net.Socket, to: net.Socket) =>
        from.on("data", (chunk) => setTimeout(() => to.write(chunk), delayMs));
      forward(client, upstream);
      forward(upstream, client);
      const end = () => {
        for (const s of [client, upstream]) {
          s.destroy();
          self!.sockets.delete(s);
        }
      };
      for (const s of [client, upstream]) s.on("error", end).on("close", end);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    self = new DelayProxy(server, (server.address() as net.AddressInfo).port);
    return self;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }
}
