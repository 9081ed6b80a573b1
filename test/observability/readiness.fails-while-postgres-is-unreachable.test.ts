/**
 * Readiness with a real fault: hookline's PostgreSQL connections go through a TCP proxy on
 * loopback; closing the proxy (the database server itself keeps running) makes
 * GET /api/v1/health/ready answer 503, and reopening it brings back 200.
 */
import { createServer, Socket, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";

/** A TCP proxy to PostgreSQL that can be cut and restored on the same port. */
class Proxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async open(): Promise<void> {
    const target = new URL(TEST_DATABASE_URL);
    const server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((r) => server.listen(this.port, "127.0.0.1", r));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server!.close(() => r()));
    this.server = null;
  }
}

const proxy = new Proxy();
const schema = freshSchemaName();
let h: TestHookline;
beforeAll(async () => {
  await proxy.open();
  const url = new URL(TEST_DATABASE_URL);
  url.host = `127.0.0.1:${proxy.port}`;
  h = await startHookline({
    env: { DATABASE_URL: url.toString(), HOOKLINE_PG_SCHEMA: schema, HOOKLINE_PG_POOL_SIZE: "2" },
  });
});
afterAll(async () => {
  await h.stop();
  await dropSchema(schema);
});

const ready = async () => {
  const res = await fetch(`${h.url}/api/v1/health/ready`);
  return { status: res.status, body: (await res.json()) as { ready: boolean; store: string } };
};

describe("readiness", () => {
  it("is 200 while the store answers, 503 while it cannot be reached, 200 once it is back", async () => {
    expect(await ready()).toEqual({ status: 200, body: { ready: true, store: "ok" } });
    await proxy.cut();
    const down = await ready();
    expect(down.status).toBe(503);
    expect(down.body.ready).toBe(false);
    expect(down.body.store).not.toBe("ok");
    await proxy.open();
    // The pool reconnects on the next query; wait for that state, not for a time.
    let back = await ready();
    while (back.status !== 200) back = await ready();
    expect(back.body).toEqual({ ready: true, store: "ok" });
  });
});
