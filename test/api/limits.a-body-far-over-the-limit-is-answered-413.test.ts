import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
beforeAll(async () => {
  api = await startApi({ maxBodyBytes: 2048 });
  appId = (await api.svix.application.create({ name: "far over" })).id;
});
afterAll(() => api.close());

/**
 * Posts a message of `bytes` from a process of its own, as a client would (in this process the
 * server and the client would take turns on one event loop), `times` times, one after the other:
 * each answer's status and `code`, or the error the client saw instead.
 */
async function postFromAnotherProcess(bytes: number, times: number): Promise<string[]> {
  const script = `
    const body = JSON.stringify({ eventType: "big", payload: { blob: "x".repeat(${bytes}) } });
    const seen = [];
    for (let i = 0; i < ${times}; i++) {
      try {
        const res = await fetch(process.argv[1], {
          method: "POST",
          headers: { authorization: process.argv[2], "content-type": "application/json" },
          body,
        });
        seen.push(res.status + " " + (await res.json()).code);
      } catch (err) {
        seen.push("failed: " + (err.cause?.code ?? err.message));
      }
    }
    console.log(JSON.stringify(seen));`;
  const { stdout } = await promisify(execFile)(process.execPath, [
    "--input-type=module",
    "-e",
    script,
    `${api.url}/api/v1/app/${appId}/msg`,
    `Bearer ${api.token}`,
  ]);
  return JSON.parse(stdout) as string[];
}

describe("a body far over HOOKLINE_MAX_BODY_BYTES", () => {
  it("is answered 413, not cut off while the client is still sending it", async () => {
    // Megabytes: more than the sockets' buffers hold, so the client is mid-upload at the answer.
    const seen = await postFromAnotherProcess(8 * 1024 * 1024, 3);
    expect(seen).toEqual(Array(3).fill("413 payload_too_large"));
  });

  it("leaves the API answering the requests after it", async () => {
    await postFromAnotherProcess(8 * 1024 * 1024, 1);
    const res = await api.call("POST", `/api/v1/app/${appId}/msg`, { eventType: "a", payload: {} });
    expect(res.status).toBe(202);
  });
});
