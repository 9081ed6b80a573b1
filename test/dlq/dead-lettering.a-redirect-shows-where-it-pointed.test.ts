/**
 * hookline does not follow redirects, and an endpoint set up with http:// for https://, or without
 * its trailing slash, gets a 301 on every delivery. Only "HTTP 301" and the body were kept: the
 * `Location` the receiver sent was dropped, and the user was left to guess the right URL. The
 * attempt's `errorDetail` now says where the redirect pointed, and so do the dead-letter record's
 * `finalError`, its reason and `hookline dlq show`, on both stores.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runDlq } from "../support/fake-api.js";
import { anEndpoint, deadLetters } from "../support/dlq.js";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface AttemptOut {
  responseStatusCode: number;
  error: string | null;
  errorDetail: string | null;
}

describe.each(["sqlite", "postgres"] as const)("a redirecting receiver, on %s", (kind) => {
  let h: TestHookline | undefined;
  let rx: Receiver | undefined;
  afterEach(async () => {
    await h?.stop();
    await rx?.close();
  });

  it("the attempt and the dead-letter record name the redirect's target", async () => {
    h = await startHooklineOn(kind);
    rx = await Receiver.start(() => ({
      status: 301,
      headers: { location: "https://hooks.example.com/invoices/" },
      body: "Moved Permanently",
    }));
    const ep = await anEndpoint(h, rx.url("/invoices"));
    const [record] = await deadLetters(h, ep, 1);
    const target = "Location: https://hooks.example.com/invoices/";

    const attempts = await h.api<{ data: AttemptOut[] }>(
      "GET",
      `/api/v1/app/${ep.appId}/attempt/endpoint/${ep.endpointId}`,
    );
    expect(attempts.body.data).toHaveLength(1);
    expect(attempts.body.data[0]).toMatchObject({
      responseStatusCode: 301,
      error: null,
      errorDetail: target,
    });

    expect(record).toMatchObject({ finalStatus: 301, finalError: target });
    expect(record!.reason).toBe(`the one attempt failed; last: HTTP 301 (${target})`);
    const whole = await h.api<{ attempts: { errorDetail: string | null }[] }>(
      "GET",
      `/api/v1/dlq/${record!.id}`,
    );
    expect(whole.body.attempts.map((a) => a.errorDetail)).toEqual([target]);

    const shown = await runDlq(h.url, ["show", record!.id], Date.now(), h.token);
    expect(shown).toContain(`    ${target}`);
  });

  it("a relative Location is resolved against the endpoint's URL", async () => {
    h = await startHooklineOn(kind);
    rx = await Receiver.start(() => ({ status: 308, headers: { location: "/invoices/" } }));
    const ep = await anEndpoint(h, rx.url("/invoices"));
    const [record] = await deadLetters(h, ep, 1);
    expect(record!.finalError).toBe(`Location: ${rx.url("/invoices/")}`);
  });
});
