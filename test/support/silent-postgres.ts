/**
 * A loopback server that lets a PostgreSQL client log in and then answers none of its statements:
 * a server whose processes or disk hung while its host still takes connections. The kernel keeps
 * those connections alive, so keep-alive never notices.
 */
import { createServer, type Server, type Socket } from "node:net";

/** AuthenticationOk ('R', length 8, 0), then ReadyForQuery ('Z', length 5, idle). */
const LOGGED_IN = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49]);

export class SilentPostgres {
  private constructor(
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    readonly port: number,
  ) {}

  /** Listens on a free loopback port. */
  static async start(): Promise<SilentPostgres> {
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy());
      // The first message is the client's startup message; nothing after it is answered.
      socket.once("data", () => socket.write(LOGGED_IN));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return new SilentPostgres(server, sockets, (server.address() as { port: number }).port);
  }

  /** A DATABASE_URL for this server, with a password a test can look for in what is printed. */
  url(password: string): string {
    return `postgres://hookline:${password}@127.0.0.1:${this.port}/hookline`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
