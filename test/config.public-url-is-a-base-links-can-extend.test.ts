/**
 * HOOKLINE_PUBLIC_URL is the base hookline appends paths to (`/portal/#…`, `/api/v1`): a query or
 * fragment in it would land in the middle of every link, and credentials in it would be handed to
 * every customer given a portal link. Such a value stops start-up instead of making broken links.
 */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { ConfigError } from "../src/errors.js";

const publicUrl = (value: string) => resolveConfig({ HOOKLINE_PUBLIC_URL: value }).publicUrl;

describe("HOOKLINE_PUBLIC_URL", () => {
  it("is kept as a base without its trailing slashes, with or without a path", () => {
    expect(publicUrl("https://hooks.example.com")).toBe("https://hooks.example.com");
    expect(publicUrl(" https://hooks.example.com/ ")).toBe("https://hooks.example.com");
    expect(publicUrl("https://hooks.example.com/hookline//")).toBe(
      "https://hooks.example.com/hookline",
    );
    expect(publicUrl("http://10.0.0.5:8080/")).toBe("http://10.0.0.5:8080");
  });

  it("is written out in full when given in a shorthand the URL parser accepts", () => {
    // `http:host` parses as http://host/; kept as typed, links read `http:host/portal/…`.
    expect(publicUrl("http:hooks.example.com")).toBe("http://hooks.example.com");
  });

  it("with a query, a fragment or credentials stops start-up, naming the variable", () => {
    for (const bad of [
      "https://hooks.example.com/?tenant=eu",
      "https://hooks.example.com/?",
      "https://hooks.example.com/#top",
    ]) {
      expect(() => publicUrl(bad), bad).toThrow(
        new ConfigError(
          `HOOKLINE_PUBLIC_URL must be a base URL without credentials, query or fragment (hookline appends paths to it), got "${bad}"`,
        ),
      );
    }
  });

  it("with credentials stops start-up without printing them (the error goes to the log)", () => {
    for (const bad of ["https://ops:s3cret@hooks.example.com", "https://ops@hooks.example.com/x"]) {
      expect(() => publicUrl(bad), bad).toThrow(
        new ConfigError(
          `HOOKLINE_PUBLIC_URL must be a base URL without credentials, query or fragment (hookline appends paths to it), got "https://(credentials hidden)@hooks.example.com${bad.endsWith("/x") ? "/x" : ""}"`,
        ),
      );
    }
  });

  it("that is not an http(s) URL stops start-up, as before", () => {
    for (const bad of ["hooks.example.com", "ftp://hooks.example.com", "https://"]) {
      expect(() => publicUrl(bad), bad).toThrow(
        new ConfigError(`HOOKLINE_PUBLIC_URL must be an http(s) URL, got "${bad}"`),
      );
    }
  });
});
