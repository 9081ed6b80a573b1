/**
 * A port in use is named with the address it was asked on. On an IPv6 address the message read
 * "in use on :::8080", the port lost among the colons; it is written [::]:8080, as URLs do.
 */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { listenFailure } from "../../src/start-failure.js";

function inUse(host: string): string {
  const config = resolveConfig({ HOOKLINE_HOST: host, HOOKLINE_PORT: "8080" });
  const err = Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE" });
  return (listenFailure(err, config) as Error).message;
}

describe("a port in use", () => {
  it("is named after an IPv6 address in brackets", () => {
    expect(inUse("::")).toContain("in use on [::]:8080:");
    expect(inUse("::1")).toContain("in use on [::1]:8080:");
  });

  it("is named after an IPv4 address as it was", () => {
    expect(inUse("0.0.0.0")).toContain("in use on 0.0.0.0:8080:");
  });
});
