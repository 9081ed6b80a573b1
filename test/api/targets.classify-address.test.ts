// Unit tests of src/engine/targets.ts; they live here because test/api is this change's folder.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { checkTarget, classifyAddress, type AddressClass } from "../../src/engine/targets.js";

const cases: Record<AddressClass, string[]> = {
  public: [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "172.15.255.255",
    "172.32.0.1",
    "100.63.255.255",
    "100.128.0.0",
    "192.169.0.1",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "::ffff:808:808",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ],
  loopback: [
    "127.0.0.1",
    "127.255.255.254",
    "127.1.2.3",
    "::1",
    "0:0:0:0:0:0:0:1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "[::1]",
  ],
  private: [
    "10.0.0.1",
    "10.255.255.255",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "100.64.0.1",
    "::ffff:10.0.0.1",
    "::ffff:a00:1",
    "::ffff:192.168.0.1",
    "::ffff:0:10.0.0.1",
    "64:ff9b::10.0.0.1",
    "64:ff9b:1::1",
    "2002:c0a8:101::1",
    "fec0::1",
  ],
  "link-local": [
    "169.254.0.1",
    "169.254.255.255",
    "fe80::1",
    "fe80::1%eth0",
    "febf::1",
    "::ffff:169.254.1.1",
  ],
  "unique-local": ["fc00::1", "fd12:3456:789a::1", "fdff:ffff::1"],
  multicast: ["224.0.0.1", "239.255.255.255", "ff02::1", "ff05::1:3"],
  metadata: [
    "169.254.169.254",
    "::ffff:169.254.169.254",
    "::ffff:a9fe:a9fe",
    "fd00:ec2::254",
    "169.254.170.2",
    "100.100.100.200",
  ],
  unspecified: ["0.0.0.0", "::", "0:0:0:0:0:0:0:0", "::ffff:0.0.0.0"],
  reserved: [
    "0.1.2.3",
    "240.0.0.1",
    "255.255.255.255",
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    "198.18.0.1",
    "192.0.0.8",
    "2001:db8::1",
    "100::1",
    "2001::1",
    "::127.0.0.1",
    "4000::1",
    "not an ip",
    "",
    "1.2.3",
    "1.2.3.256",
    "01.2.3.4",
    "1::2::3",
    "12345::",
    "1:2:3:4:5:6:7:8:9",
  ],
};

describe("classifyAddress", () => {
  for (const [cls, addresses] of Object.entries(cases)) {
    for (const address of addresses) {
      it(`${JSON.stringify(address)} is ${cls}`, () => {
        expect(classifyAddress(address)).toBe(cls);
      });
    }
  }

  it("classifies an IPv4-mapped IPv6 address exactly as its IPv4 address", () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(classifyAddress(`::ffff:${ip}`)).toBe(classifyAddress(ip));
      }),
    );
  });

  it("agrees with itself on every spelling of an IPv6 address", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }),
        (groups) => {
          const full = groups.map((g) => g.toString(16).padStart(4, "0")).join(":");
          const short = groups.map((g) => g.toString(16)).join(":");
          expect(classifyAddress(short)).toBe(classifyAddress(full));
          expect(classifyAddress(full.toUpperCase())).toBe(classifyAddress(full));
        },
      ),
    );
  });

  it("never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(typeof classifyAddress(s)).toBe("string");
      }),
    );
  });
});

describe("checkTarget", () => {
  const strict = { allowPrivateTargets: false };
  it("allows public addresses and refuses others with a reason", async () => {
    expect(await checkTarget(new URL("https://8.8.8.8/x"), strict)).toBeNull();
    expect(await checkTarget(new URL("http://127.0.0.1/"), strict)).toMatch(/loopback/);
    expect(await checkTarget(new URL("http://[fd00:ec2::254]/"), strict)).toMatch(/metadata/);
    expect(await checkTarget(new URL("http://LOCALHOST./"), strict)).toMatch(/loopback/);
    expect(await checkTarget(new URL("http://api.localhost/"), strict)).toMatch(/loopback/);
    expect(await checkTarget(new URL("http://0x7f.1/"), strict)).toMatch(/loopback/);
  });

  it("refuses schemes other than http and https even when private targets are allowed", async () => {
    expect(await checkTarget(new URL("ftp://example.com/"), { allowPrivateTargets: true })).toMatch(
      /scheme/,
    );
    expect(
      await checkTarget(new URL("http://127.0.0.1/"), { allowPrivateTargets: true }),
    ).toBeNull();
  });

  it("allows a name that does not resolve (the engine checks again when it connects)", async () => {
    expect(await checkTarget(new URL("https://no-such-host.invalid/"), strict)).toBeNull();
  });
});
