/**
 * Which network addresses hookline may send webhooks to. A webhook URL is chosen by a customer, so
 * without these checks it could point hookline at the host's loopback services, the private
 * network, or a cloud metadata service (SSRF). The API checks URLs when endpoints are saved; the
 * engine classifies the address it actually connects to, since DNS may change in between.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/** What kind of address an IP is; everything but "public" is refused unless private targets are allowed. */
export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "unique-local"
  | "multicast"
  | "metadata"
  | "unspecified"
  | "reserved";

type V4Rule = { base: string; bits: number; cls: AddressClass };

// Order matters: the first matching rule wins, so narrow rules come before the ranges holding them.
const V4_RULES: readonly V4Rule[] = [
  // Cloud instance metadata: AWS/GCP/Azure/OpenStack, AWS ECS task metadata, Alibaba, Azure wireserver.
  { base: "169.254.169.254", bits: 32, cls: "metadata" },
  { base: "169.254.170.2", bits: 32, cls: "metadata" },
  { base: "100.100.100.200", bits: 32, cls: "metadata" },
  { base: "168.63.129.16", bits: 32, cls: "metadata" },
  { base: "0.0.0.0", bits: 32, cls: "unspecified" },
  { base: "0.0.0.0", bits: 8, cls: "reserved" },
  { base: "127.0.0.0", bits: 8, cls: "loopback" },
  { base: "10.0.0.0", bits: 8, cls: "private" },
  { base: "172.16.0.0", bits: 12, cls: "private" },
  { base: "192.168.0.0", bits: 16, cls: "private" },
  // Carrier-grade NAT shared space: not routable on the internet, often internal in clouds.
  { base: "100.64.0.0", bits: 10, cls: "private" },
  { base: "169.254.0.0", bits: 16, cls: "link-local" },
  { base: "192.0.0.0", bits: 24, cls: "reserved" },
  { base: "192.0.2.0", bits: 24, cls: "reserved" },
  { base: "192.88.99.0", bits: 24, cls: "reserved" },
  { base: "198.18.0.0", bits: 15, cls: "reserved" },
  { base: "198.51.100.0", bits: 24, cls: "reserved" },
  { base: "203.0.113.0", bits: 24, cls: "reserved" },
  { base: "224.0.0.0", bits: 4, cls: "multicast" },
  { base: "240.0.0.0", bits: 4, cls: "reserved" },
];

const V4_PARSED = V4_RULES.map((r) => ({ ...r, base: parseV4(r.base)! }));

/** Classifies an IPv4 or IPv6 address (brackets and a zone id are allowed); anything unparsable is "reserved". */
export function classifyAddress(ip: string): AddressClass {
  let text = ip.trim();
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
  const v4 = parseV4(text);
  if (v4 !== null) return classifyV4(v4);
  const zone = text.indexOf("%");
  if (zone !== -1) text = text.slice(0, zone);
  const v6 = parseV6(text);
  return v6 === null ? "reserved" : classifyV6(v6);
}

function classifyV4(addr: number): AddressClass {
  for (const r of V4_PARSED) {
    const mask = r.bits === 0 ? 0 : (0xffffffff << (32 - r.bits)) >>> 0;
    if ((addr & mask) >>> 0 === (r.base & mask) >>> 0) return r.cls;
  }
  return "public";
}

function classifyV6(h: number[]): AddressClass {
  const [h0 = 0, h1 = 0, h2 = 0, h3 = 0, h4 = 0, h5 = 0, h6 = 0, h7 = 0] = h;
  const v4Tail = ((h6 << 16) | h7) >>> 0;
  const zeroUpTo = (n: number): boolean => h.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && h7 === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d) and SIIT-translated (::ffff:0:a.b.c.d) addresses reach IPv4 hosts.
  if (zeroUpTo(5) && h5 === 0xffff) return classifyV4(v4Tail);
  if (zeroUpTo(4) && h4 === 0xffff && h5 === 0) return classifyV4(v4Tail);
  // Deprecated IPv4-compatible addresses and the rest of ::/8.
  if (h0 === 0) return "reserved";
  // NAT64 well-known prefix: a gateway translates these to the embedded IPv4 address.
  if (h0 === 0x64 && h1 === 0xff9b && h2 === 0 && h3 === 0 && h4 === 0 && h5 === 0) {
    return classifyV4(v4Tail);
  }
  if (h0 === 0x64 && h1 === 0xff9b && h2 === 1) return "private";
  // 6to4: the IPv4 address sits in bits 16..48.
  if (h0 === 0x2002) return classifyV4(((h1 << 16) | h2) >>> 0);
  // AWS instance metadata over IPv6 (fd00:ec2::254), inside the unique-local range below.
  if (h0 === 0xfd00 && h1 === 0x0ec2 && h.slice(2, 7).every((x) => x === 0) && h7 === 0x254) {
    return "metadata";
  }
  if ((h0 & 0xfe00) === 0xfc00) return "unique-local";
  if ((h0 & 0xffc0) === 0xfe80) return "link-local";
  // Deprecated site-local addresses behave like private ones.
  if ((h0 & 0xffc0) === 0xfec0) return "private";
  if ((h0 & 0xff00) === 0xff00) return "multicast";
  if (h0 === 0x100 && h1 === 0 && h2 === 0 && h3 === 0) return "reserved";
  if (h0 === 0x2001 && h1 === 0x0db8) return "reserved";
  // 2001::/23 holds protocol assignments such as Teredo, whose real target is hidden.
  if (h0 === 0x2001 && h1 < 0x200) return "reserved";
  // Only 2000::/3 is allocated as global unicast.
  if ((h0 & 0xe000) !== 0x2000) return "reserved";
  return "public";
}

/** Strict dotted-quad IPv4 to an unsigned 32-bit number, or null. */
function parseV4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let out = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p.startsWith("0"))) return null;
    const n = Number(p);
    if (n > 255) return null;
    out = out * 256 + n;
  }
  return out;
}

/** IPv6 text (with optional "::" and trailing dotted IPv4) to eight 16-bit groups, or null. */
function parseV6(text: string): number[] | null {
  if (!text.includes(":")) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const items = part.split(":");
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (i === items.length - 1 && item.includes(".")) {
        const v4 = parseV4(item);
        if (v4 === null) return null;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(item)) {
        out.push(parseInt(item, 16));
      } else {
        return null;
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (head === null || tail === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

const DESCRIBE: Record<Exclude<AddressClass, "public">, string> = {
  loopback: "a loopback address",
  private: "a private network address",
  "link-local": "a link-local address",
  "unique-local": "a unique local (private) IPv6 address",
  multicast: "a multicast address",
  metadata: "a cloud metadata service address",
  unspecified: "the unspecified address",
  reserved: "a reserved or non-routable address",
};

const DNS_TIMEOUT_MS = 2_000;

/**
 * Whether hookline may send to `url`: null when allowed, else a reason for a person to read.
 * Hostnames are resolved and refused if any address they resolve to is not public. A name that
 * does not resolve (yet) is allowed: the engine checks the address again when it connects.
 */
export async function checkTarget(
  url: URL,
  opts: { allowPrivateTargets: boolean },
): Promise<string | null> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `scheme ${url.protocol} is not allowed; use http or https`;
  }
  if (opts.allowPrivateTargets) return null;
  let host = url.hostname.toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host.endsWith(".")) host = host.slice(0, -1);
  const hint = "; private targets are refused (HOOKLINE_ALLOW_PRIVATE_TARGETS is off)";
  if (host === "localhost" || host.endsWith(".localhost")) {
    return `${host} is ${DESCRIBE.loopback}${hint}`;
  }
  if (isIP(host)) {
    const cls = classifyAddress(host);
    return cls === "public" ? null : `${host} is ${DESCRIBE[cls]}${hint}`;
  }
  const addresses = await resolve(host);
  for (const address of addresses) {
    const cls = classifyAddress(address);
    // Not the address itself: an application's token (a customer's portal) must not be able
    // to learn where the operator's internal names point.
    if (cls !== "public") return `${host} resolves to ${DESCRIBE[cls]}${hint}`;
  }
  return null;
}

async function resolve(host: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string[]>((done) => {
    timer = setTimeout(() => done([]), DNS_TIMEOUT_MS);
    timer.unref();
  });
  const lookedUp = lookup(host, { all: true, verbatim: true }).then(
    (found) => found.map((a) => a.address),
    () => [],
  );
  try {
    return await Promise.race([lookedUp, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
