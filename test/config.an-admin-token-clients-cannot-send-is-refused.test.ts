/**
 * An admin token is sent in an Authorization header, which carries printable ASCII unchanged and
 * nothing else reliably: a terminal sends "é" as two UTF-8 bytes that the server reads as two
 * other characters, and browsers refuse to send it at all. Such a token used to be accepted and
 * then answered 401 to every client; start-up now refuses it, naming the variable.
 */
import { expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { ConfigError } from "../src/errors.js";

it.each(["pässwörd-of-sufficient-length", "token-with-a-tab\there!", "emoji-token-🔑-long-enough"])(
  "refuses HOOKLINE_ADMIN_TOKEN=%j, naming the variable and the rule",
  (raw) => {
    const resolve = () => resolveConfig({ HOOKLINE_ADMIN_TOKEN: raw });
    expect(resolve).toThrow(ConfigError);
    expect(resolve).toThrow(/HOOKLINE_ADMIN_TOKEN must be .*printable ASCII/);
  },
);

it("keeps a printable ASCII token, punctuation included", () => {
  const raw = "hl_admin-~!#$%&'*+.^`|0123456789";
  expect(resolveConfig({ HOOKLINE_ADMIN_TOKEN: raw }).adminToken).toBe(raw);
});
