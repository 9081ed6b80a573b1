import { afterEach, describe, expect, it } from "vitest";
import { reached, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

describe("with private targets refused, the address actually connected to is checked", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  for (const host of ["127.0.0.1", "localhost"]) {
    it(`a delivery to ${host} is refused with a clear attempt error and dead-lettered, not retried`, async () => {
      h = await startEngine({ refusePrivateTargets: true });
      rx = await Receiver.start();
      // Saved straight into the store, as if the name had resolved to a public address before.
      await h.addEndpoint(`http://${host}:${rx.port}/hook`);
      const msgId = await h.post({});
      await h.waitFor(reached(msgId, "dead"));
      expect(rx.requests).toHaveLength(0);
      const [attempt] = (
        await h.store.listAttempts({ appId: h.app.id, messageId: msgId, limit: 5 })
      ).data;
      expect(attempt).toMatchObject({
        error: "refused_target",
        outcome: "permanent",
        status: null,
      });
      expect(attempt!.errorDetail).toMatch(/loopback addresses are not allowed/);
      // The name, not where it points: customers read attempts in their portal.
      expect(attempt!.errorDetail).toContain(`refused to connect to ${host}:`);
      if (host === "localhost") expect(attempt!.errorDetail).not.toMatch(/127\.0\.0\.1|::1/);
    });
  }
});
