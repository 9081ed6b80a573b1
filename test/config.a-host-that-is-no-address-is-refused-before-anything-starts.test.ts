/**
 * HOOKLINE_HOST written as a URL, with its port, or in a URL's brackets was refused only when the
 * API came to listen: after the store was opened and the delivery engine had started claiming and
 * sending, so a hookline that was never going to run sent deliveries first (on every restart a
 * service manager made). Such values are refused with the other settings, saying what to write.
 */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";

const host = (value: string) => () => resolveConfig({ HOOKLINE_HOST: value }).host;

describe("HOOKLINE_HOST", () => {
  it("refuses a URL, naming the settings for its parts", () => {
    expect(host("http://0.0.0.0:8080")).toThrow(
      'HOOKLINE_HOST must be an address or a host name to listen on, not a URL (the port is HOOKLINE_PORT, and the URL hookline prints and links to is HOOKLINE_PUBLIC_URL), got "http://0.0.0.0:8080"',
    );
  });

  it("refuses an address with a port", () => {
    expect(host("0.0.0.0:8080")).toThrow(
      'HOOKLINE_HOST must be an address or a host name without a port (the port is HOOKLINE_PORT), got "0.0.0.0:8080"',
    );
  });

  it("refuses an IPv6 address in brackets", () => {
    expect(host("[::1]")).toThrow(
      'HOOKLINE_HOST must be an IPv6 address without the brackets a URL puts around it (::1), got "[::1]"',
    );
  });

  it("refuses what is no address nor host name", () => {
    for (const bad of ["*", "local host", "-x", "a..b"]) {
      expect(host(bad)).toThrow(
        `HOOKLINE_HOST must be an address or a host name to listen on (0.0.0.0 or :: for every interface), got "${bad}"`,
      );
    }
  });

  it("takes addresses and host names", () => {
    for (const good of [
      "127.0.0.1",
      "0.0.0.0",
      "::",
      "::1",
      "fe80::1%eth0",
      "localhost",
      "hookline_api.internal",
      "host-1.example.com.",
    ]) {
      expect(host(good)()).toBe(good);
    }
  });
});
