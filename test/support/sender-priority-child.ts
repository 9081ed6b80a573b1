/**
 * Run as a child process by the sender-threads test: a threaded sender steps its thread down
 * and asks for the way back, and this prints what Linux let it do, as one line of JSON: the
 * refusals the sender told of, and the nice values of the threads it added.
 */
import { ThreadedSender } from "../../src/engine/sender-threads.js";
import { cameTrue, niceOf, threadIds } from "./threads.js";

const before = new Set(threadIds());
const refused: number[] = [];
const sender = new ThreadedSender({ threads: 1, onPriorityRefused: (n) => refused.push(n) });
const main = niceOf(String(process.pid));
const added = () => threadIds().filter((t) => !before.has(t));
sender.yieldToCallers(true);
const steppedDown = await cameTrue(() =>
  added()
    .map(niceOf)
    .includes(main + 5),
);
sender.yieldToCallers(false);
await cameTrue(() => refused.length > 0 || added().every((t) => niceOf(t) === main));
process.stdout.write(
  `${JSON.stringify({ main, steppedDown, refused, nice: added().map(niceOf) })}\n`,
);
await sender.close();
