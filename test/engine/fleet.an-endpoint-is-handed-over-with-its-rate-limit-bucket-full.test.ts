/**
 * The worker that takes an endpoint over starts its rate limit's bucket full. Handed over right
 * after the old owner spent its burst, the receiver saw two bursts within one bucket's time,
 * beyond its `rateLimit` (at a rate of 1 a second, two requests a few milliseconds apart). The
 * old owner now lets the endpoint go only once its own bucket is full again: a fresh bucket is
 * then the same as the old one continued.
 */
import { expect, it } from "vitest";
import { anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { engineSideOver } from "../support/fleet-host.js";

/** The fleet side of an engine holding one endpoint, loaded and marked for hand-over. */
async function markedForHandover(rateLimit: number | null) {
  const app = anApplication();
  const endpoint = anEndpoint(app.id, { rateLimit });
  const { clock, runtimes, holdings, host } = await engineSideOver([endpoint], app);
  const rt = runtimes.get(endpoint.id)!;
  // A request just started and was answered at once.
  rt.throttle?.take();
  holdings.markLeaving(rt, "handover");
  return { clock, host, id: endpoint.id };
}

it("hands a rate-limited endpoint over only once its bucket is full again", async () => {
  // One token a second, spent on that request.
  const { clock, host, id } = await markedForHandover(1);
  expect(host.readyToRelease().handover).toEqual([]);
  clock.advance(500);
  expect(host.readyToRelease().handover).toEqual([]);
  clock.advance(500);
  expect(host.readyToRelease().handover).toEqual([id]);
});

it("hands an endpoint without a rate limit over at once", async () => {
  const { host, id } = await markedForHandover(null);
  expect(host.readyToRelease().handover).toEqual([id]);
});
