import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRelay } from "../../bench/lib/relay-process.js";

interface Received {
  body: string;
  id: string | undefined;
  signature: string | undefined;
}

// The relay is scenario 3's reference: its figure means something only if every post it answers
// reaches the receiver, whole and signed, however many processes share its port.
describe("the bench's storage-free relay", () => {
  const received: Received[] = [];
  const target = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        body: Buffer.concat(chunks).toString("utf8"),
        id: req.headers["webhook-id"] as string | undefined,
        signature: req.headers["webhook-signature"] as string | undefined,
      });
      res.end("ok");
    });
  });
  let targetUrl = "";

  beforeAll(async () => {
    await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((r) => target.close(() => r())));

  it.each([1, 2])("answers and forwards every post with %i process(es)", async (processes) => {
    received.length = 0;
    const relay = await startRelay(targetUrl, 10, processes);
    try {
      const posts = Array.from({ length: 40 }, (_, i) => ({ eventType: "a.b", payload: { n: i } }));
      const answers = await Promise.all(
        posts.map((p) =>
          fetch(`${relay.url}/api/v1/app/relay/msg`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(p),
          }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(posts.map(() => 202));
      const bad = await fetch(`${relay.url}/x`, { method: "POST", body: "not json" });
      expect(bad.status).toBe(422);
      await expect.poll(() => received.length, { timeout: 10_000 }).toBe(posts.length);
      expect(received.map((r) => JSON.parse(r.body).n).sort((a, b) => a - b)).toEqual(
        posts.map((p) => p.payload.n),
      );
      expect(new Set(received.map((r) => r.id)).size).toBe(posts.length);
      for (const r of received) expect(r.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(relay.cpuMs()).toBeGreaterThanOrEqual(0);
    } finally {
      await relay.stop();
    }
  });
});
