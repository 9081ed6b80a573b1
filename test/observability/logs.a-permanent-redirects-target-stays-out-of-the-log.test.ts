/**
 * An endpoint may count a redirect among its permanent statuses (a receiver that moved for good:
 * `permanentStatuses: [301, 308]`). Its delivery then ends at once, with the reason
 * "HTTP 308 (Location: …) is permanent", and when the endpoint's dead-letter queue is full that
 * reason is logged in the line of the record not kept. The target was left out of the log only
 * where it ended the reason or came before "; ", so this one, most often the endpoint's own URL
 * with its token, was logged whole. It is left out wherever the reason goes on.
 */
import { expect, it } from "vitest";
import { withoutRedirectTarget } from "../../src/engine/sender.js";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";
import { useSelfRedirectingReceiver } from "../support/redirect-log.js";

const TOKEN = "url-token-7741";
const redirects = useSelfRedirectingReceiver(TOKEN);

it("a redirect counted permanent leaves its target, the endpoint's URL with its token, out of the log", async () => {
  const { h, rx, lines } = redirects;
  const ep = await anEndpoint(h, rx.url(`/hook?token=${TOKEN}`), { permanentStatuses: [308] });
  const ids = [await post(h, ep.appId, { n: 1 }), await post(h, ep.appId, { n: 2 })];
  for (const id of ids) await h.waitFor(deliveryOf(id, "dead"));

  // The record kept still says where the receiver pointed.
  const records = await h.api<{ data: { reason: string }[] }>(
    "GET",
    `/api/v1/dlq?app_id=${ep.appId}`,
  );
  expect(records.body.data.map((r) => r.reason)).toEqual([
    `HTTP 308 (Location: https://127.0.0.1:${rx.port}/hook?token=${TOKEN}) is permanent`,
  ]);

  const parsed = lines.map((l) => JSON.parse(l) as { msg: string; detail?: string });
  const notKept = parsed.find((l) => l.msg === "dead letter not kept: depth cap reached");
  expect(notKept?.detail).toMatch(/; HTTP 308 \(Location left out of the log\) is permanent$/);
  expect(lines.join("\n")).not.toContain(TOKEN);
});

it("leaves the target out of a permanent redirect's reason, whatever the target holds", () => {
  const at = `https://receiver.example/hook?token=${TOKEN}`;
  expect(withoutRedirectTarget(`HTTP 301 (Location: ${at}) is permanent`)).toBe(
    "HTTP 301 (Location left out of the log) is permanent",
  );
  expect(
    withoutRedirectTarget(
      `not kept: the endpoint has 1 open records (cap 1); HTTP 308 (Location: ${at}&a=(b)) is permanent`,
    ),
  ).toBe(
    "not kept: the endpoint has 1 open records (cap 1); HTTP 308 (Location left out of the log) is permanent",
  );
});
