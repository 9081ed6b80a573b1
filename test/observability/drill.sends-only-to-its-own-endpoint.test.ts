/**
 * The drill's application is listed with the others; the API refuses to change it (409), but an
 * older hookline let an operator add an endpoint to it or change the drill's own endpoint, and a
 * store may still hold such changes (made here through the store). The drill message still goes
 * to the drill's endpoint alone, and the drill still passes: it tests the failure path, not what
 * was added.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint } from "../store/behaviour/fixtures.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface DrillOut {
  passed: boolean;
  steps: { name: string; passed: boolean; detail: string }[];
}

let h: TestHookline;
let rx: Receiver;
beforeAll(async () => {
  h = await startHookline();
  rx = await Receiver.start();
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

const drill = async (): Promise<DrillOut> => {
  const res = await h.api<DrillOut>("POST", "/api/v1/drill");
  expect(res.status).toBe(200);
  return res.body;
};
const failed = (run: DrillOut) => run.steps.filter((s) => !s.passed);

describe("a failure drill whose application was changed by hand", () => {
  it("passes with another endpoint in the drill's application, which gets nothing", async () => {
    expect(failed(await drill())).toEqual([]);
    const app = await h.svix.application.get("hookline-drill");
    await h.hookline.store.createEndpoint(anEndpoint(app.id, { url: rx.url("/added") }));

    const run = await drill();
    expect(failed(run)).toEqual([]);
    expect(run.passed).toBe(true);
    expect(rx.on("/added")).toEqual([]);
  });

  it("passes after the drill's endpoint was given channels", async () => {
    const app = await h.svix.application.get("hookline-drill");
    const own = await h.hookline.store.findEndpoint(app.id, "drill");
    await h.hookline.store.updateEndpoint({
      ...own!,
      channels: ["somewhere"],
      updatedAt: Date.now(),
    });

    const run = await drill();
    expect(failed(run)).toEqual([]);
    expect(run.passed).toBe(true);
  });
});
