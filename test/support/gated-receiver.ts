/**
 * A receiver on loopback that holds every request until the test opens its gate, then answers
 * them all with one status (200 unless told otherwise).
 */
import { createServer, type Server } from "node:http";

export class GatedReceiver {
  readonly ids: string[] = [];
  private open = false;
  private held: (() => void)[] = [];
  private arrivals: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    private readonly status: number,
  ) {}

  static async start(status = 200): Promise<GatedReceiver> {
    const server = createServer();
    const rx = new GatedReceiver(server, status);
    server.on("request", (req, res) => {
      req.resume();
      req.on("end", () => {
        rx.ids.push(String(req.headers["webhook-id"]));
        const answer = () => res.writeHead(rx.status).end("ok");
        if (rx.open) answer();
        else rx.held.push(answer);
        for (const wake of rx.arrivals.splice(0)) wake();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    return rx;
  }

  url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
  }

  /** Resolves once at least `n` requests have arrived. */
  async arrived(n: number): Promise<void> {
    while (this.ids.length < n) await new Promise<void>((r) => this.arrivals.push(r));
  }

  /** Answers every held request and every later one. */
  release(): void {
    this.open = true;
    for (const answer of this.held.splice(0)) answer();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
