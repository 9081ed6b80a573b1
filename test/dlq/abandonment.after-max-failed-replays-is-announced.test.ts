import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, dlqChange } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("a record whose replays keep failing", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("is abandoned after HOOKLINE_DLQ_MAX_REPLAYS failures in a row, and that is announced", async () => {
    h = await startHookline({ env: { HOOKLINE_DLQ_MAX_REPLAYS: "2" } });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const [record] = await deadLetters(h, ep, 1);
    const replay = () =>
      h.api<{ result: string; record: { state: string; failedReplays: number } }>(
        "POST",
        `/api/v1/dlq/${record!.id}/replay`,
      );

    expect((await replay()).body).toMatchObject({
      result: "failed",
      record: { state: "open", failedReplays: 1 },
    });
    expect((await replay()).body).toMatchObject({
      result: "failed",
      record: { state: "abandoned", failedReplays: 2 },
    });
    const announced = await h.waitFor(dlqChange("abandoned", record!.id));
    expect(announced).toMatchObject({
      type: "dead-letter",
      change: {
        endpointId: ep.endpointId,
        appId: ep.appId,
        actor: "hookline",
        detail: "abandoned after 2 failed replays in a row",
      },
    });
    expect((await replay()).status).toBe(409);
    expect(rx.requests).toHaveLength(3);

    // A person abandoning a record is announced the same way.
    const [other] = await deadLetters(h, ep, 1);
    await h.api("POST", `/api/v1/dlq/${other!.id}/abandon`, { note: "test data" });
    const byHand = await h.waitFor(dlqChange("abandoned", other!.id));
    expect(byHand).toMatchObject({ change: { actor: "admin" } });
  });
});
