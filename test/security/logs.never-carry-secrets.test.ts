import { afterEach, expect, it } from "vitest";
import { REDACTED_LOG_PATHS } from "../../src/app.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { loggerToLines } from "../support/log-lines.js";
import { Receiver } from "../support/receiver.js";

const SECRET = "whsec_c2VjcmV0LXRoYXQtbXVzdC1ub3QtbGVhaw==";
const HEADER = "Bearer credential-that-must-not-leak";

let h: TestHookline | undefined;
let rx: Receiver | undefined;
afterEach(async () => {
  await h?.stop();
  await rx?.close();
});

it("logs at trace level carry no endpoint secret or custom header, even when delivery fails", async () => {
  const { logger, lines } = loggerToLines({ level: "trace", redact: REDACTED_LOG_PATHS });
  rx = await Receiver.start(() => ({ status: 500, body: "no" }));
  h = await startHookline({ overrides: { logger } });
  const app = await h.svix.application.create({ name: "shop" });
  await h.svix.endpoint.create(app.id, {
    url: rx.url("/hook"),
    secret: SECRET,
    headers: { "x-receiver-auth": HEADER },
  });
  const msg = await h.svix.message.create(app.id, { eventType: "a.b", payload: { n: 1 } });
  await h.waitFor(deliveryOf(msg.id, "pending"));
  // The redaction list is the safety net for what a future log line might include.
  logger.error({ endpoint: { secrets: { current: SECRET } }, secret: SECRET }, "probe");
  const all = lines.join("");
  expect(all).toContain("[Redacted]");
  expect(all).not.toContain(SECRET);
  expect(all).not.toContain(HEADER);
});
