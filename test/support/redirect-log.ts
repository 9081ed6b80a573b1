/**
 * For the tests that keep a redirect's target out of the log: what each of them starts.
 */
import { afterAll, beforeAll } from "vitest";
import { startHookline, type TestHookline } from "./hookline.js";
import { loggerToLines } from "./log-lines.js";
import { Receiver } from "./receiver.js";

/**
 * A hookline keeping one dead letter per endpoint, so that the others are logged as not kept,
 * with its debug log in `lines`; and a receiver answering every request 308 to its own
 * `/hook?token=<token>` over https, as a receiver moved to TLS answers. Started before the file's
 * tests, stopped after them; read `h` and `rx` inside tests.
 */
export function useSelfRedirectingReceiver(token: string): {
  readonly h: TestHookline;
  readonly rx: Receiver;
  readonly lines: string[];
} {
  const { logger, lines } = loggerToLines({ level: "debug" });
  let h: TestHookline | undefined;
  let rx: Receiver | undefined;
  beforeAll(async () => {
    h = await startHookline({ env: { HOOKLINE_DLQ_MAX_PER_ENDPOINT: "1" }, overrides: { logger } });
    rx = await Receiver.start(() => ({
      status: 308,
      headers: { location: `https://127.0.0.1:${rx!.port}/hook?token=${token}` },
    }));
  });
  afterAll(async () => {
    await h?.stop();
    await rx?.close();
  });
  return {
    get h() {
      return h!;
    },
    get rx() {
      return rx!;
    },
    lines,
  };
}
