/**
 * The API's connections whose request is still arriving, so a stop can close them. Node times out a
 * request that takes too long to arrive only while the server listens: closing it (the first step
 * of a stop) ends those checks, and a client that had sent part of a request and then nothing held
 * the stop for good, deliveries going on meanwhile, until the process was killed.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** Watches `server`'s connections; `cut()` closes those whose request has not fully arrived. */
export interface ArrivingRequests {
  /** Closes the connections still receiving a request (or between two); returns how many. */
  cut(): number;
}

export function watchArrivingRequests(server: Server): ArrivingRequests {
  // Each connection's latest request's answer; null before its first request.
  const latest = new Map<Socket, ServerResponse | null>();
  server.on("connection", (socket: Socket) => {
    latest.set(socket, null);
    socket.once("close", () => latest.delete(socket));
  });
  // One map write per request, the whole cost on the API's path.
  server.on("request", (req: IncomingMessage, res: ServerResponse) => latest.set(req.socket, res));
  return {
    cut() {
      let cut = 0;
      for (const [socket, res] of latest) {
        // A request that has arrived is being answered: hookline's own timeouts bound it, and its
        // answer (saying Connection: close) ends the connection.
        if (res && !res.writableFinished && res.req.complete) continue;
        socket.destroy();
        cut++;
      }
      return cut;
    },
  };
}
