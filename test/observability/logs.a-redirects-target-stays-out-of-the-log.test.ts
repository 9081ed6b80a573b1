/**
 * A receiver that answers with a redirect most often points at the endpoint's own URL, written
 * otherwise (`https://` for `http://`, a trailing slash), token and all. The attempt keeps where it
 * pointed (`Location: …`) for the people reading it through the API, and the reasons built from
 * the attempt carried it into the log: the circuit's line when the redirects opened it, and the
 * line of a dead letter not kept past the endpoint's cap. observability.md promises no log line
 * holds an endpoint's URL; those lines now say a redirect's target is left out, and the API still
 * shows it.
 */
import { expect, it } from "vitest";
import { withoutRedirectTarget } from "../../src/engine/sender.js";
import { anEndpoint, ONE_ATTEMPT, post } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";
import { useSelfRedirectingReceiver } from "../support/redirect-log.js";

const TOKEN = "url-token-5150";
const redirects = useSelfRedirectingReceiver(TOKEN);

it("a redirect's target, the endpoint's URL with its token, is in no log line; the API still shows it", async () => {
  const { h, rx, lines } = redirects;
  const ep = await anEndpoint(h, rx.url(`/hook?token=${TOKEN}`), ONE_ATTEMPT);
  // Five failures in a row open the circuit; four of the five records are not kept.
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await post(h, ep.appId, { n: i }));
  for (const id of ids) await h.waitFor(deliveryOf(id, "dead"));
  await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");

  const attempts = await h.api<{ data: { errorDetail: string | null }[] }>(
    "GET",
    `/api/v1/app/${ep.appId}/attempt/endpoint/${ep.endpointId}`,
  );
  expect(attempts.body.data[0]!.errorDetail).toBe(
    `Location: https://127.0.0.1:${rx.port}/hook?token=${TOKEN}`,
  );

  const parsed = lines.map((l) => JSON.parse(l) as { msg: string; reason?: string });
  const circuit = parsed.find((l) => l.msg === "circuit");
  expect(circuit?.reason).toMatch(/^5 consecutive failures within 60 s; last: HTTP 308 \(/);
  expect(parsed.some((l) => l.msg === "dead letter not kept: depth cap reached")).toBe(true);
  expect(lines.join("\n")).not.toContain(TOKEN);
});

it("every reason a redirect ends up in loses only the target, wherever it stands in it", () => {
  const at = `https://receiver.example/hook?token=${TOKEN}`;
  expect(
    withoutRedirectTarget(
      `probe failed: HTTP 308 (Location: ${at}); the receiver's Retry-After put the probe off`,
    ),
  ).toBe(
    "probe failed: HTTP 308 (Location left out of the log); the receiver's Retry-After put the probe off",
  );
  expect(withoutRedirectTarget(`all 3 attempts failed; last: HTTP 301 (Location: ${at})`)).toBe(
    "all 3 attempts failed; last: HTTP 301 (Location left out of the log)",
  );
  // A target with parentheses of its own is left out whole.
  expect(withoutRedirectTarget(`HTTP 302 (Location: ${at}&a=(b))`)).toBe(
    "HTTP 302 (Location left out of the log)",
  );
  expect(withoutRedirectTarget("HTTP 503")).toBe("HTTP 503");
});
