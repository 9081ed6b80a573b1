/**
 * A receiver on loopback that holds every request until the test opens its gate, then answers
 * them all with one status (200 unless told otherwise). It counts the requests it holds at once.
 */
import { createServer, type Server } from "node:http";

export class GatedReceiver {
  readonly ids: string[] = [];
  /** The `x-worker` header of each request, beside `ids` (a test's sender may tag its requests). */
  readonly workers: (string | null)[] = [];
  /** The most requests held unanswered at the same moment. */
  maxOpen = 0;
  private openNow = 0;
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
        const worker = req.headers["x-worker"];
        rx.workers.push(typeof worker === "string" ? worker : null);
        rx.maxOpen = Math.max(rx.maxOpen, ++rx.openNow);
        const answer = () => {
          rx.openNow--;
          res.writeHead(rx.status).end("ok");
        };
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

  /** Resolves once at least `n` requests tagged `worker` have arrived. */
  async arrivedFrom(worker: string, n: number): Promise<void> {
    const count = () => this.workers.filter((w) => w === worker).length;
    while (count() < n) await new Promise<void>((r) => this.arrivals.push(r));
  }

  /** Answers the requests held now; later ones are held as before. */
  answerWaiting(): void {
    for (const answer of this.held.splice(0)) answer();
  }

  /** Answers every held request and every later one. */
  release(): void {
    this.open = true;
    this.answerWaiting();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
