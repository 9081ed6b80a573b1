/**
 * Waiting at most so long for something to finish, as stopping does everywhere (deliveries in
 * flight, the outcome flush, the database's connections): the work goes on, the wait does not.
 */

/**
 * Resolves true once `work` resolves, or false once `ms` pass first (rejects if `work` rejects
 * first). The timer is cleared either way, so it keeps nothing alive after.
 */
export async function finishedWithin(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How long a probe of hookline (health, readiness, a /metrics scrape and its token) waits for the
 * store before answering without it: a silent database holds a query for the whole query timeout,
 * past orchestrators' and Prometheus's own timeouts.
 */
export const PROBE_WAIT_MS = 2_000;
