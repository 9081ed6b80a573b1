/**
 * The failure drill's receiver: an HTTP server hookline runs itself on 127.0.0.1, answering 503
 * until the drill switches it to 200. It checks every request's Standard Webhooks signature with
 * the drill endpoint's secret. While it listens, its exact address and port are exempt from the
 * SSRF guard (and nothing else is).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ExemptTargets } from "../engine/guarded-connect.js";
import { activeKeys, signPayload } from "../signing/sign.js";

/** One request as the drill receiver saw it. */
export interface DrillRequest {
  webhookId: string;
  status: number;
  signatureValid: boolean;
  body: Buffer;
}

const HOST = "127.0.0.1";

/** See the module comment. */
export class DrillReceiver {
  readonly requests: DrillRequest[] = [];
  healthy = false;
  private server: Server | null = null;
  private port = 0;

  constructor(
    private readonly exempt: ExemptTargets,
    private readonly secret: string,
  ) {}

  get url(): string {
    return `http://${HOST}:${this.port}/drill`;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        const status = this.healthy ? 200 : 503;
        this.requests.push({
          webhookId: String(req.headers["webhook-id"] ?? ""),
          status,
          signatureValid: this.verify(req.headers, body),
          body,
        });
        res.writeHead(status, { "content-type": "text/plain" }).end(this.healthy ? "ok" : "drill");
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, HOST, resolve);
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    this.exempt.add(HOST, this.port);
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.exempt.delete(HOST, this.port);
    const server = this.server;
    this.server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private verify(headers: Record<string, string | string[] | undefined>, body: Buffer): boolean {
    const id = headers["webhook-id"];
    const ts = Number(headers["webhook-timestamp"]);
    const sig = headers["webhook-signature"];
    if (typeof id !== "string" || typeof sig !== "string" || !Number.isSafeInteger(ts)) {
      return false;
    }
    const [key] = activeKeys({ current: this.secret, previous: [] }, 0);
    const expected = signPayload({ msgId: id, timestamp: ts, body, keys: [key!] });
    return sig.split(" ").includes(expected);
  }
}
