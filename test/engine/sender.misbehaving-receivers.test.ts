import { createServer as createNetServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { senders } from "../support/senders.js";

/** A raw TCP server that answers each connection however the test says. */
async function rawServer(
  onConnection: (socket: Socket) => void,
): Promise<{ url: string; server: Server; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createNetServer((s) => {
    sockets.push(s);
    s.on("error", () => {});
    onConnection(s);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    server,
    sockets,
  };
}

const request = (url: string, timeoutMs = 1_000) => ({
  url,
  headers: { "content-type": "application/json" },
  body: Buffer.from("{}"),
  timeoutMs,
});

// The same bounds hold whether the main thread sends or a sender thread does.
describe.each(senders)("misbehaving receivers are bounded and recorded clearly (%s)", (_, make) => {
  let sender: Sender;
  let cleanup: (() => void)[] = [];
  afterEach(async () => {
    for (const c of cleanup) c();
    cleanup = [];
    await sender.close();
  });

  async function serve(onConnection: (socket: Socket) => void) {
    const s = await rawServer(onConnection);
    cleanup.push(() => {
      for (const sock of s.sockets) sock.destroy();
      s.server.close();
    });
    return s.url;
  }

  it("a connection that never answers times out", async () => {
    sender = make();
    const url = await serve(() => {});
    const r = await sender.send(request(url, 500));
    expect(r).toMatchObject({ status: null, error: "timeout" });
    expect(r.errorDetail).toMatch(/500 ms/);
  });

  it("a response that dribbles a byte a second is cut off by the deadline", async () => {
    sender = make();
    const url = await serve((s) => {
      s.once("data", () => {
        s.write(
          "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n",
        );
        const t = setInterval(() => s.writable && s.write("1\r\nx\r\n"), 1_000);
        s.on("close", () => clearInterval(t));
      });
    });
    // 3 s, not 1.5: the status must be in before the deadline, and a busy machine (the suite runs
    // two files at once) can hold it up for a while.
    const r = await sender.send(request(url, 3_000));
    // The receiver did answer 200; the stalled body is cut at the deadline and what came is kept.
    expect(r).toMatchObject({ status: 200, error: null });
    expect(r.snippet.length).toBeLessThanOrEqual(4096);
  });

  it("headers that dribble in never reach a status, and time out", async () => {
    sender = make();
    const url = await serve((s) => {
      s.once("data", () => {
        s.write("HTTP/1.1 200 OK\r\nx-slow: ");
        const t = setInterval(() => s.writable && s.write("a"), 200);
        s.on("close", () => clearInterval(t));
      });
    });
    const r = await sender.send(request(url, 800));
    expect(r).toMatchObject({ status: null, error: "timeout" });
  });

  it("an endless body is read only up to 4 KiB", async () => {
    sender = make();
    const url = await serve((s) => {
      s.once("data", () => {
        s.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n");
        const chunk = `${(64 * 1024).toString(16)}\r\n${"y".repeat(64 * 1024)}\r\n`;
        const pump = () => {
          while (s.writable && s.write(chunk));
        };
        s.on("drain", pump);
        pump();
      });
    });
    const r = await sender.send(request(url, 5_000));
    expect(r.status).toBe(200);
    expect(r.snippet).toBe("y".repeat(4096));
  });

  it("a malformed HTTP response is a network error with a detail", async () => {
    sender = make();
    const url = await serve((s) => {
      s.once("data", () => s.end("this is not http\r\n\r\n"));
    });
    const r = await sender.send(request(url));
    expect(r.status).toBeNull();
    expect(r.error).not.toBeNull();
    expect(r.errorDetail).toBeTruthy();
  });

  it("a TLS handshake against a plain server is a tls or network error, not a hang", async () => {
    sender = make();
    const url = await serve((s) => {
      s.once("data", () => s.end("HTTP/1.1 400 Bad Request\r\n\r\n"));
    });
    const r = await sender.send(request(url.replace("http://", "https://"), 2_000));
    expect(r.status).toBeNull();
    expect(["tls", "network", "connection_reset"]).toContain(r.error);
  });

  it("a request that cannot be made (bad header, bad URL) is a network error, not a throw", async () => {
    sender = make();
    const badHeader = await sender.send({
      ...request("http://127.0.0.1:9/hook"),
      headers: { "x-broken": "a\nb" },
    });
    expect(badHeader).toMatchObject({ status: null, error: "network" });
    expect(badHeader.errorDetail).toMatch(/x-broken/);
    const badUrl = await sender.send(request("not a url"));
    expect(badUrl).toMatchObject({ status: null, error: "network" });
  });

  it("a refused connection is connection_refused", async () => {
    sender = make();
    const url = await serve(() => {});
    const port = new URL(url).port;
    cleanup.pop()!();
    const r = await sender.send(request(`http://127.0.0.1:${port}/`));
    expect(r.error).toBe("connection_refused");
  });
});
