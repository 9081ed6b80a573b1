import { ApiException } from "svix";
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, type JobOut } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("the Svix recover call with its window the wrong way round", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("is refused naming until, as a bulk replay is, instead of a job that replays nothing", async () => {
    h = await startHookline();
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    await deadLetters(h, ep, 1);
    const since = new Date(Date.now() - 60_000);
    const until = new Date(since.getTime() - 3_600_000);

    const err = await h.svix.endpoint
      .recover(ep.appId, ep.endpointId, { since, until })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiException);
    const answer = err as ApiException<{ detail: { loc: string[]; msg: string }[] }>;
    expect(answer.code).toBe(422);
    expect(answer.body.detail).toEqual([
      expect.objectContaining({ loc: ["body", "until"], msg: "must be later than since" }),
    ]);
    const jobs = await h.api<{ data: JobOut[] }>("GET", "/api/v1/dlq/replay");
    expect(jobs.body.data).toEqual([]);
  });
});
