/**
 * The one way the sender's socket hooks (bounded-answer.ts, unasked-continue.ts,
 * answer-before-write-error.ts, lost-idle-connection.ts) reach the sockets undici makes.
 */
import type { Socket } from "node:net";
import type { buildConnector } from "undici";

/** Wraps an undici connector so `hook` gets each socket it makes, before undici does. */
export function onEachSocket(
  connect: buildConnector.connector,
  hook: (socket: Socket) => void,
): buildConnector.connector {
  return (options, callback) =>
    connect(options, (...args) => {
      if (args[1]) hook(args[1] as Socket);
      callback(...args);
    });
}
