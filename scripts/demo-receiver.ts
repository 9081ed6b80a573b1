/**
 * The demo's receiver: four webhook endpoints on loopback that misbehave the way real ones do, so
 * the dashboard has retries, Retry-After, an open circuit and dead letters to show.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** When the outage endpoint is down, in ms after the demo starts. */
export const OUTAGE = { fromMs: 20_000, untilMs: 170_000 };

/** The receiver's paths, each with the trouble it causes. */
export const PATHS = {
  flaky: "/flaky", // one request in eight fails with 500; a few events get a 400 the first time
  limited: "/rate-limited", // every sixth request gets 429 with Retry-After: 8
  outage: "/outage", // down (503) between OUTAGE.fromMs and OUTAGE.untilMs
  slow: "/slow", // answers after 1.5 to 4 seconds
} as const;

export interface DemoReceiver {
  url(path: string): string;
  close(): Promise<void>;
}

/** Starts the receiver on 127.0.0.1 (a free port). */
export async function startDemoReceiver(startedAt: number): Promise<DemoReceiver> {
  const counts = new Map<string, number>();
  const refusedOnce = new Set<string>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0]!;
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      const id = String(req.headers["webhook-id"] ?? "");
      const answer = (status: number, body: string, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "text/plain", ...headers });
        res.end(body);
      };
      const sinceStart = Date.now() - startedAt;
      switch (path) {
        case PATHS.flaky:
          // A "validation bug" that a fix later cures: the replay of this event then succeeds.
          if (n % 23 === 0 && !refusedOnce.has(id)) {
            refusedOnce.add(id);
            return answer(400, "unknown field: customer.tier");
          }
          return n % 8 === 0 ? answer(500, "internal error") : answer(200, "ok");
        case PATHS.limited:
          return n % 6 === 0
            ? answer(429, "slow down", { "retry-after": "8" })
            : answer(200, "accepted");
        case PATHS.outage:
          return sinceStart >= OUTAGE.fromMs && sinceStart < OUTAGE.untilMs
            ? answer(503, "upstream maintenance")
            : answer(200, "ok");
        case PATHS.slow:
          setTimeout(() => answer(200, "finally"), 1_500 + Math.random() * 2_500);
          return;
        default:
          return answer(404, "no such hook");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
