/**
 * The SSRF guard at connect time: the address hookline actually connects to is classified, after
 * DNS resolution, so a name that resolved to a public address when the endpoint was saved and to
 * 127.0.0.1 now (DNS rebinding) is still refused.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { buildConnector } from "undici";
import { classifyAddress } from "./targets.js";

/**
 * The error a refused connection fails with; the sender classifies it as `refused_target`. It
 * names the host as the endpoint's URL has it, not the address a name resolved to: the attempt is
 * shown to the application's customers (their portal), who must not learn where the operator's
 * internal names point.
 */
export function refusedTarget(host: string, address: string): Error {
  const cls = classifyAddress(address);
  return Object.assign(
    new Error(
      `refused to connect to ${host}: ${cls} addresses are not allowed (HOOKLINE_ALLOW_PRIVATE_TARGETS)`,
    ),
    { code: "HOOKLINE_REFUSED_TARGET" },
  );
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const refused = addresses.find((a) => classifyAddress(a.address) !== "public");
    if (refused) return callback(refusedTarget(hostname, refused.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}

/**
 * Exact loopback `address:port` pairs of servers hookline itself runs (the failure drill's
 * receiver), let through while they listen. Not a general exemption: nothing else is added.
 */
export class ExemptTargets {
  private pairs = new Set<string>();
  private readonly listeners: ((pairs: string[]) => void)[] = [];

  add(address: string, port: number): void {
    this.pairs.add(`${address}:${port}`);
    this.changed();
  }

  delete(address: string, port: number): void {
    this.pairs.delete(`${address}:${port}`);
    this.changed();
  }

  /** Sender threads keep a copy of the list; they are told of every change. */
  onChange(listener: (pairs: string[]) => void): void {
    this.listeners.push(listener);
  }

  /** The whole list, as a copy held in a sender thread receives it. */
  replaceAll(pairs: readonly string[]): void {
    this.pairs = new Set(pairs);
  }

  list(): string[] {
    return [...this.pairs];
  }

  private changed(): void {
    for (const l of this.listeners) l(this.list());
  }

  has(address: string, port: number): boolean {
    return this.pairs.has(`${address}:${port}`);
  }
}

/** A connector for undici's Agent that refuses non-public addresses; connecting may take `timeoutMs`. */
export function guardedConnector(
  timeoutMs: number,
  exempt?: ExemptTargets,
): buildConnector.connector {
  const base = buildConnector({
    lookup: guardedLookup,
    timeout: timeoutMs,
  } as buildConnector.BuildOptions);
  return (options, callback) => {
    // Literal IPs skip DNS (and so the lookup above): check them here.
    const host = options.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) && exempt?.has(host, Number(options.port))) {
      base(options, callback);
      return;
    }
    if (isIP(host) && classifyAddress(host) !== "public") {
      callback(refusedTarget(host, host), null);
      return;
    }
    base(options, callback);
  };
}
