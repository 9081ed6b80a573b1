/**
 * A single replay that ends without its request going out answers `failed` with a `detail` that
 * says why: its endpoint was disabled after the replay was queued (no attempt at all), or the SSRF
 * guard refused the endpoint's address (an attempt is recorded, but no connection was made).
 */
import { createServer, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, PATIENT_BREAKER, post, type RecordOut } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

type ReplayAnswer = {
  result: string;
  detail: string | null;
  attempt: { error: string | null } | null;
  record: RecordOut;
};

type ErrorAnswer = { code: string; detail: string };

/**
 * A receiver that fails every request with 503 until told to hold them; a held request is
 * answered when the test says, with the status it says.
 */
async function holdingReceiver() {
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

async function untilState(h: TestHookline, id: string, state: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const r = await h.api<RecordOut>("GET", `/api/v1/dlq/${id}`);
    if (r.body.state === state) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`record ${id} did not become ${state}`);
}

/**
 * A hookline with one dead-letter record whose replay waits in the engine behind a request the
 * receiver holds; `answer` is the replay's answer, pending until the held request is answered.
 */
async function aReplayBehindAHeldRequest<T>(
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
  await untilState(h, record.id, "replaying");
  return { h, rx, ep, record, answer };
}

describe("a single replay that sends nothing says why", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("its endpoint disabled (a 410) while the replay waited behind a request in flight", async () => {
    const { h, rx, record, answer } = await aReplayBehindAHeldRequest<ReplayAnswer>(cleanups);
    const before = rx.received;
    rx.answerHeld(410);

    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: "failed",
      attempt: null,
      detail: "no request was sent: endpoint disabled: the receiver answered 410 Gone",
      // Nothing reached the receiver: the record reopens, and the failure does not count.
      record: { state: "open", replayCount: 1, failedReplays: 0 },
    });
    expect(rx.received).toBe(before);
    const whole = await h.api<{ history: { action: string; result: string }[] }>(
      "GET",
      `/api/v1/dlq/${record.id}`,
    );
    expect(whole.body.history.at(-1)).toMatchObject({
      action: "replayed",
      result: res.body.detail,
    });
  });

  it("its endpoint deleted while the replay waited: 404, saying so, once the wait is over", async () => {
    // A short request timeout keeps the wait (timeout + 5 s) short.
    const { h, rx, ep, record, answer } = await aReplayBehindAHeldRequest<ErrorAnswer>(cleanups, {
      HOOKLINE_REQUEST_TIMEOUT_MS: "2000",
    });
    const deleted = await h.api("DELETE", `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`);
    expect(deleted.status).toBe(204);
    rx.answerHeld(200);

    const res = await answer;
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      code: "not_found",
      detail: `dead-letter record ${record.id} (its endpoint was deleted meanwhile) not found`,
    });
  });

  it("its endpoint's address refused by the SSRF guard", async () => {
    const rx = await Receiver.start(() => ({ status: 503 }));
    cleanups.push(() => rx.close());
    const first = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    const ep = await anEndpoint(first, rx.url("/hooks"));
    const [record] = await deadLetters(first, ep, 1);
    await first.stop(true);
    // The same data, served with private targets refused: the loopback receiver is one.
    const h = await startHookline({
      dataDir: first.dataDir,
      env: { HOOKLINE_ALLOW_PRIVATE_TARGETS: "0" },
      overrides: { breaker: PATIENT_BREAKER },
    });
    cleanups.push(() => h.stop());
    rx.behave(() => ({ status: 200 }));

    const res = await h.api<ReplayAnswer>("POST", `/api/v1/dlq/${record!.id}/replay`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: "failed",
      attempt: { error: "refused_target" },
      detail:
        "no request was sent: refused to connect to 127.0.0.1: loopback addresses are not " +
        "allowed (HOOKLINE_ALLOW_PRIVATE_TARGETS)",
    });
    expect(rx.requests).toHaveLength(1);
  });
});
