/**
 * docs/delivery.md: a connection to a receiver is kept 4 s after its last answer, unless the
 * receiver's Keep-Alive header says otherwise. Many receivers close idle connections without
 * saying when (Puma after 20 s, uvicorn after 5 s); kept longer than that, a delivery sent as the
 * receiver closes its end met the close, failed as a reset connection the receiver never saw,
 * counted toward the circuit and waited for a retry. The receiver here plays that crossing: a
 * request on a connection idle for more than 4.5 s is cut off unanswered.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Sender } from "../../src/engine/sender.js";
import { senders } from "../support/senders.js";

const RECEIVER_IDLE_MS = 4_500;

describe.each(senders)("an idle connection (%s)", (_, make) => {
  let server: Server | undefined;
  let sender: Sender | undefined;
  afterEach(async () => {
    await sender?.close();
    server?.closeAllConnections();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
  });

  it(
    "is not used past the time a receiver that gives none may keep it",
    { timeout: 20_000 },
    async () => {
      const answeredAt = new WeakMap<Socket, number>();
      let connections = 0;
      let cutOff = 0;
      server = createServer((req, res) => {
        const last = answeredAt.get(req.socket);
        if (last !== undefined && Date.now() - last > RECEIVER_IDLE_MS) {
          cutOff++;
          req.socket.destroy();
          return;
        }
        req.resume();
        req.on("end", () => {
          res.end("ok", () => answeredAt.set(req.socket, Date.now()));
        });
      });
      // No Keep-Alive header in answers and no idle timeout of its own: the test decides.
      server.keepAliveTimeout = 0;
      server.on("connection", () => connections++);
      await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      sender = make();
      const send = () =>
        sender!.send({ url, headers: {}, body: Buffer.from("{}"), timeoutMs: 5_000 });

      const first = await send();
      expect(first).toMatchObject({ status: 200, error: null });
      await new Promise((r) => setTimeout(r, RECEIVER_IDLE_MS + 500));
      const second = await send();
      expect(second).toMatchObject({ status: 200, error: null });
      expect(cutOff).toBe(0);
      expect(connections).toBe(2);
    },
  );
});
