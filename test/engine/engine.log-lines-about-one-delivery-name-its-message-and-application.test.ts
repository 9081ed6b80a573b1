/**
 * Every log line about one delivery names its message and its application beside the delivery
 * and the endpoint (docs/observability.md, "Logs and health"), so that an operator who searches
 * the log for a message id, or for an application's, finds every line about it. Two error lines
 * named only the delivery and the endpoint: an outcome the store refused, and a request hookline
 * lost that could not be put back.
 */
import { afterEach, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
import { lost, type Sender, type SendResult } from "../../src/engine/sender.js";
import { startEngine, type EngineHarness } from "../support/engine.js";

interface Line {
  fields: Record<string, unknown>;
  msg: string;
}

/** A logger that keeps its lines and lets a test wait for one. */
function recordingLogger() {
  const lines: Line[] = [];
  const waiting: { part: string; resolve: (l: Line) => void }[] = [];
  const keep = (fields: object, msg: string) => {
    const line = { fields: fields as Record<string, unknown>, msg };
    lines.push(line);
    for (const w of waiting.filter((w) => msg.includes(w.part))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(line);
    }
  };
  return {
    logger: { warn: keep, error: keep },
    /** The first line whose message holds `part`, once it is logged. */
    line(part: string): Promise<Line> {
      const seen = lines.find((l) => l.msg.includes(part));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiting.push({ part, resolve }));
    },
  };
}

const ANSWERED: SendResult = {
  status: 200,
  error: null,
  errorDetail: null,
  snippet: "ok",
  retryAfter: null,
};

/** A sender that gives the results listed, in turn, then answers 200 to everything. */
function senderGiving(...results: SendResult[]): Sender {
  return {
    send: () => Promise.resolve(results.shift() ?? ANSWERED),
    close: () => Promise.resolve(),
  };
}

let h: EngineHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe("a log line about one delivery", () => {
  it("names its message and application when the store refuses the delivery's outcome", async () => {
    const log = recordingLogger();
    h = await startEngine({ sender: senderGiving(), logger: log.logger });
    const refusal = Object.assign(new Error("CHECK constraint failed: attempts"), {
      code: "SQLITE_CONSTRAINT_CHECK",
    });
    h.store.recordAttempts = () => Promise.reject(refusal);
    const ep = await h.addEndpoint("http://127.0.0.1:9/hook");
    const messageId = await h.post({ order: 1 });

    const line = await log.line("the store refused an attempt's outcome");

    expect(line.fields).toMatchObject({ messageId, appId: h.app.id, endpointId: ep.id });
    expect(line.fields.deliveryId).toEqual(expect.stringMatching(/^dlv_/));
  });

  it("names its message and application when a lost request cannot be put back", async () => {
    const log = recordingLogger();
    h = await startEngine({
      sender: senderGiving(lost("the sender thread stopped")),
      logger: log.logger,
    });
    const store = h.store;
    const release = store.releaseDeliveries.bind(store);
    let failures = 1;
    store.releaseDeliveries = (releases) =>
      failures-- > 0
        ? Promise.reject(new StoreUnavailableError("the database is restarting"))
        : release(releases);
    const ep = await h.addEndpoint("http://127.0.0.1:9/hook");
    const messageId = await h.post({ order: 1 });

    const line = await log.line("putting back a delivery whose request hookline lost failed");

    expect(line.fields).toMatchObject({ messageId, appId: h.app.id, endpointId: ep.id });
    expect(line.fields.deliveryId).toEqual(expect.stringMatching(/^dlv_/));
    // Put back once the store answers, it is sent again and delivered.
    await h.waitFor(
      (e) => e.type === "delivery" && e.messageId === messageId && e.state === "succeeded",
    );
  });
});
