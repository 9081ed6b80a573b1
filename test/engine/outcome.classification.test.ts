import { describe, it, expect } from "vitest";
import {
  DEFAULT_PERMANENT_STATUSES,
  STATUS_TABLE,
  classifyOutcome,
  disablesEndpoint,
  type TransportErrorClass,
} from "../../src/engine/outcome.js";

const permanent = new Set(DEFAULT_PERMANENT_STATUSES);

describe("outcome classification", () => {
  it("2xx is success", () => {
    for (const status of [200, 201, 202, 204, 299])
      expect(classifyOutcome({ status }, permanent)).toBe("success");
  });

  it("429 is rate limited", () => {
    expect(classifyOutcome({ status: 429 }, permanent)).toBe("rate_limited");
  });

  it("408, 425 and 5xx are retryable", () => {
    for (const status of [408, 425, 500, 502, 503, 504, 599]) {
      expect(classifyOutcome({ status }, permanent)).toBe("retryable");
    }
  });

  it("3xx is a retryable failure, since redirects are not followed", () => {
    for (const status of [300, 301, 302, 304, 307, 308]) {
      expect(classifyOutcome({ status }, permanent)).toBe("retryable");
    }
  });

  it("the default permanent set is 400, 404, 405, 410, 413, 415, 422", () => {
    expect([...DEFAULT_PERMANENT_STATUSES]).toEqual([400, 404, 405, 410, 413, 415, 422]);
    for (const status of DEFAULT_PERMANENT_STATUSES) {
      expect(classifyOutcome({ status }, permanent)).toBe("permanent");
    }
  });

  it("any other status is retryable", () => {
    for (const status of [100, 401, 403, 409, 411, 418, 451]) {
      expect(classifyOutcome({ status }, permanent)).toBe("retryable");
    }
  });

  it("a custom permanent set replaces the default, but 410 stays permanent", () => {
    const custom = new Set([401]);
    expect(classifyOutcome({ status: 401 }, custom)).toBe("permanent");
    expect(classifyOutcome({ status: 400 }, custom)).toBe("retryable");
    expect(classifyOutcome({ status: 410 }, custom)).toBe("permanent");
    expect(classifyOutcome({ status: 410 }, new Set())).toBe("permanent");
    expect(classifyOutcome({ status: 200 }, new Set([200]))).toBe("success");
  });

  it("transport errors are retryable, except a target hookline refuses to connect to", () => {
    const retryable: TransportErrorClass[] = [
      "timeout",
      "connection_refused",
      "connection_reset",
      "dns",
      "tls",
      "network",
    ];
    for (const error of retryable) expect(classifyOutcome({ error }, permanent)).toBe("retryable");
    expect(classifyOutcome({ error: "refused_target" }, permanent)).toBe("permanent");
  });

  it("a transport error wins over a status, and nothing at all is retryable", () => {
    expect(classifyOutcome({ status: 200, error: "timeout" }, permanent)).toBe("retryable");
    expect(classifyOutcome({}, permanent)).toBe("retryable");
  });

  it("only 410 disables the endpoint", () => {
    expect(disablesEndpoint(410)).toBe(true);
    for (const status of [undefined, 200, 400, 404, 429, 500])
      expect(disablesEndpoint(status)).toBe(false);
  });

  it("the documented table agrees with the classifier", () => {
    expect(STATUS_TABLE.length).toBeGreaterThan(0);
    for (const row of STATUS_TABLE) {
      expect(row.examples.length, row.match).toBeGreaterThan(0);
      for (const example of row.examples) {
        expect(
          classifyOutcome(example, permanent),
          `${row.match}: ${JSON.stringify(example)}`,
        ).toBe(row.outcome);
      }
    }
  });
});
