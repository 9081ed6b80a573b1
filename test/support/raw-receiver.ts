/**
 * A loopback TCP server that answers each connection's first request by hand, for answers no
 * HTTP server library would send (a 101 to a POST, endless interim answers, a status under 100).
 */
import { createServer, type AddressInfo, type Socket } from "node:net";

export interface RawReceiver {
  /** `127.0.0.1:port`. */
  host: string;
  url(path?: string): string;
  close(): void;
}

/** Calls `answer` with each connection once its first request bytes have come. */
export async function rawReceiver(answer: (socket: Socket) => void): Promise<RawReceiver> {
  const sockets: Socket[] = [];
  const server = createServer((s) => {
    sockets.push(s);
    s.on("error", () => {});
    s.once("data", () => answer(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    url: (path = "/hook") => `http://${host}${path}`,
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
