import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { senders } from "../support/senders.js";

describe.each(senders)("a timeout's detail says what the deadline cut short (%s)", (_, make) => {
  let sender: Sender;
  let server: Server;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await sender.close();
    await new Promise((r) => server.close(r));
  });

  // Takes TCP connections and never says a word: no TLS handshake, no HTTP answer.
  async function silent(): Promise<number> {
    server = createServer((s) => {
      sockets.push(s);
      s.on("error", () => {});
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return (server.address() as AddressInfo).port;
  }

  const post = (url: string) => ({ url, headers: {}, body: Buffer.from("{}"), timeoutMs: 600 });

  it("a connection never set up (a TLS handshake never answered) is not an unanswered request", async () => {
    sender = make();
    const port = await silent();
    const r = await sender.send(post(`https://127.0.0.1:${port}/hook`));
    expect(r).toMatchObject({ status: null, error: "timeout" });
    expect(r.errorDetail).toBe("no connection within 600 ms");
  });

  it("a request sent and never answered is", async () => {
    sender = make();
    const port = await silent();
    const r = await sender.send(post(`http://127.0.0.1:${port}/hook`));
    expect(r).toMatchObject({ status: null, error: "timeout" });
    expect(r.errorDetail).toBe("no answer within 600 ms");
  });
});
