/** Whether the API's address can be listened on, tried before anything else starts. */
import { createServer } from "node:net";

/**
 * Listens on `host`:`port` and lets go at once. The API listens last, once deliveries run; a host
 * that is no address of this machine, or a port in use, would stop start-up only then, after the
 * engine had sent what was due, on every restart of a hookline that can never run. Another
 * process can still take the port between this and the real listen; that is told then, as before.
 */
export function tryListening(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}
