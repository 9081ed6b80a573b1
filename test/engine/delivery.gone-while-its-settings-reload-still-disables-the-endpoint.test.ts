/**
 * A 410 Gone disables the endpoint for the engine too when the endpoint's settings were reloaded
 * while that request was out (someone edited the endpoint meanwhile): the deliveries still
 * waiting for it are dead-lettered as "endpoint disabled", not sent to the gone receiver.
 */
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, startEngine, type EngineHarness } from "../support/engine.js";

describe("410 Gone answered after the endpoint's settings reloaded", () => {
  let h: EngineHarness;
  let server: Server;
  afterEach(async () => {
    await h.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it("sends nothing more to the endpoint it disabled", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    // The first request waits for the test, then is answered 410; any later one is answered 200.
    const received: string[] = [];
    let answerFirst = (): void => {};
    let firstArrived = (): void => {};
    const arrived = new Promise<void>((r) => (firstArrived = r));
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received.push(String(req.headers["webhook-id"]));
        if (received.length > 1) return void res.writeHead(200).end();
        answerFirst = () => res.writeHead(410).end();
        firstArrived();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    const ep = await h.addEndpoint(url);

    const first = await h.post({ n: 1 });
    await arrived;
    // Edited while the first request is out; the engine reloads the endpoint's settings as it
    // admits the next delivery to it.
    await h.store.updateEndpoint({ ...ep, description: "edited", updatedAt: ep.updatedAt + 1 });
    h.engine.invalidateEndpoint(ep.id);
    const second = await h.post({ n: 2 });
    await h.waitFor(reached(second, "succeeded"));
    // Accepted while the endpoint is enabled, due after the 410.
    const third = await h.post({ n: 3 }, { dueAt: clock.now() + 60_000 });

    answerFirst();
    await h.waitFor(reached(first, "dead"));
    clock.advance(60_000);
    const end = await h.waitFor((e) => reached(third, "dead")(e) || reached(third, "succeeded")(e));

    expect(received).toEqual([first, second]);
    expect(end.type === "delivery" && end.attempt).toBeNull();
    expect(h.events.filter((e) => e.type === "endpoint.disabled")).toHaveLength(1);
  });
});
