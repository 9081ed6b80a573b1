/** Reading a hookline's /metrics in tests: every sample line as `series → value`. */

/** Parses the Prometheus text format's sample lines (comments skipped). */
export function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    const value = line.slice(at + 1);
    // The text format spells infinities +Inf and -Inf, which Number() does not read.
    out.set(
      line.slice(0, at),
      value.endsWith("Inf") ? Number(`${value[0]}Infinity`) : Number(value),
    );
  }
  return out;
}

/** Scrapes `url`/metrics with the admin token. */
export async function scrape(url: string, token: string): Promise<Map<string, number>> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return parseMetrics(await res.text());
}

/** The hookline_circuit_state series of endpoint `endpointId` in `state`, as a scrape names it. */
export function circuitStateSeries(endpointId: string, state: string): string {
  return `hookline_circuit_state{endpoint="${endpointId}",state="${state}"}`;
}
