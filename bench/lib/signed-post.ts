/**
 * What the bench's own senders (the ceiling client, the relay) share: a keep-alive Agent and the
 * headers of a POST signed as Standard Webhooks signs it (HMAC-SHA256 over "id.timestamp.body").
 */
import { createHmac } from "node:crypto";
import { Agent } from "undici";

export function keepAliveAgent(): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connections: null,
    pipelining: 1,
  });
}

export function signedHeaders(
  key: Buffer,
  id: string,
  body: string | Buffer,
  userAgent: string,
): Record<string, string> {
  const ts = Math.floor(Date.now() / 1000);
  const sig = createHmac("sha256", key).update(`${id}.${ts}.`).update(body).digest("base64");
  return {
    "content-type": "application/json",
    "user-agent": userAgent,
    "webhook-id": id,
    "webhook-timestamp": String(ts),
    "webhook-signature": `v1,${sig}`,
  };
}
