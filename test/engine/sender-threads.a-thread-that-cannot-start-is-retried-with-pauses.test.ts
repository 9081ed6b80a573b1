import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { restartDelayMs, ThreadedSender } from "../../src/engine/sender-threads.js";
import { cameTrue } from "../support/threads.js";

const post = (url: string) => ({
  url,
  headers: { "content-type": "application/json" },
  body: Buffer.from("{}"),
  timeoutMs: 5_000,
});

describe("a sender thread that cannot start is started again with pauses between", () => {
  let sender: ThreadedSender | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await sender?.close();
    server?.close();
    sender = undefined;
    server = undefined;
  });

  it("each start that fails waits longer before the next, says so, and sending carries on", async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.end(req.url));
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const warned: { obj: Record<string, unknown>; msg: string }[] = [];
    sender = new ThreadedSender({
      threads: 1,
      // A thread whose code throws before it can take any request.
      entry: { file: "throw new Error('cannot start')", eval: true },
      log: { warn: (obj, msg) => warned.push({ obj: obj as Record<string, unknown>, msg }) },
    });
    const stops = () => warned.filter((w) => "restartInMs" in w.obj);
    expect(await cameTrue(() => stops().length >= 3)).toBe(true);
    expect(stops().map((w) => w.obj.restartInMs)).toEqual([250, 500, 1_000]);
    expect(stops()[0]!.msg).toMatch(/sender thread stopped/);
    expect(String(stops()[0]!.obj.detail)).toMatch(/cannot start/);

    // With no thread up, the main thread sends, and says so once.
    const answers = await Promise.all([1, 2].map((i) => sender!.send(post(`${base}/r/${i}`))));
    expect(answers.map((a) => a.snippet)).toEqual(["/r/1", "/r/2"]);
    expect(warned.filter((w) => /main thread/.test(w.msg))).toHaveLength(1);
  });

  it("the pause doubles for each start in a row that fails, up to 30 s", () => {
    expect([0, 1, 2, 3, 4, 8, 20].map(restartDelayMs)).toEqual([
      0, 250, 500, 1_000, 2_000, 30_000, 30_000,
    ]);
  });
});
