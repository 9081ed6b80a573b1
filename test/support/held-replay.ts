/**
 * A single replay held in the engine behind a request the receiver does not answer yet: the
 * DLQ tests' way to act on a replay while it waits for its outcome.
 */
import { createServer, type ServerResponse } from "node:http";
import { anEndpoint, deadLetters, PATIENT_BREAKER, post, type RecordOut } from "./dlq.js";
import { startHookline } from "./hookline.js";

/**
 * A receiver that fails every request with 503 until told to hold them; a held request is
 * answered when the test says, with the status it says.
 */
export async function holdingReceiver() {
  let holding = false;
  const held: ServerResponse[] = [];
  const arrivals: (() => void)[] = [];
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      if (!holding) return void res.writeHead(503).end("down");
      held.push(res);
      for (const wake of arrivals.splice(0)) wake();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    get received() {
      return received;
    },
    /** Requests held and not answered yet. */
    get held() {
      return held.length;
    },
    hold: () => (holding = true),
    arrived: async () => {
      while (held.length === 0) await new Promise<void>((r) => arrivals.push(r));
    },
    answerHeld: (status: number) => {
      for (const res of held.splice(0)) res.writeHead(status).end();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Waits (10 s at most) until `read` says the record is in `state`. */
export async function untilRecordIs(
  read: () => Promise<string | undefined>,
  state: string,
): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if ((await read()) === state) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the record did not become ${state}`);
}

/**
 * A hookline with one dead-letter record whose replay waits in the engine behind a request the
 * receiver holds; `answer` is the replay's answer, pending until the held request is answered.
 */
export async function aReplayBehindAHeldRequest<T>(
  cleanups: (() => Promise<void>)[],
  env?: Record<string, string>,
) {
  const h = await startHookline({ env, overrides: { breaker: PATIENT_BREAKER } });
  cleanups.push(() => h.stop());
  const rx = await holdingReceiver();
  cleanups.push(() => rx.close());
  // One request at a time: the replay waits in the engine behind the held one.
  const ep = await anEndpoint(h, rx.url, { retry: { preset: "manual" }, concurrencyLimit: 1 });
  const record = (await deadLetters(h, ep, 1))[0]!;

  rx.hold();
  await post(h, ep.appId, { after: "the outage" });
  await rx.arrived();
  const answer = h.api<T>("POST", `/api/v1/dlq/${record.id}/replay`, {});
  await untilRecordIs(
    async () => (await h.api<RecordOut>("GET", `/api/v1/dlq/${record.id}`)).body.state,
    "replaying",
  );
  return { h, rx, ep, record, answer };
}
