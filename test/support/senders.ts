/** The two ways hookline sends, for sender tests that must hold for both. */
import { HttpSender, type Sender } from "../../src/engine/sender.js";
import { ThreadedSender } from "../../src/engine/sender-threads.js";

/** In process, and on a sender thread (whose answers cross a thread boundary). */
export const senders: [string, () => Sender][] = [
  ["in process", () => new HttpSender()],
  ["on a sender thread", () => new ThreadedSender({ threads: 1 })],
];
