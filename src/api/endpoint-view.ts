/**
 * An endpoint as the API shows it: Svix's EndpointOut plus hookline's view of its health (circuit,
 * concurrency, Retry-After counters), taken from the engine when it has live numbers and from the
 * store otherwise.
 */
import type { Application, CircuitRecord, Endpoint, EndpointStats } from "../domain/types.js";
import { effectiveAfterLimitChange } from "../engine/adaptive-limit.js";
import { neverOpened, PUT_OFF_BY_RETRY_AFTER } from "../engine/breaker.js";
import { resolvePolicy } from "../engine/policy.js";
import type { ApiDeps } from "./deps.js";
import { iso } from "./schemas/common.js";

/**
 * The circuit an endpoint is shown with: the engine's live one, else `stored` (read by the caller,
 * one endpoint at a time or a page at once), else closed since the endpoint was made.
 */
export function circuitShown(
  deps: Pick<ApiDeps, "engine">,
  ep: Endpoint,
  stored: CircuitRecord | null | undefined,
): CircuitRecord {
  return deps.engine.endpointStatus(ep.id)?.circuit ?? stored ?? neverOpened(ep.createdAt);
}

/** {@link circuitShown}, the stored circuit read only when the engine has no live one. */
export async function circuitOf(deps: ApiDeps, ep: Endpoint): Promise<CircuitRecord> {
  const live = deps.engine.endpointStatus(ep.id)?.circuit;
  return live ?? circuitShown(deps, ep, await deps.store.getCircuit(ep.id));
}

/** A circuit's fields as every answer that carries one shows them. */
export function circuitOut(circuit: CircuitRecord) {
  return {
    state: circuit.state,
    since: iso(circuit.since),
    reason: withoutOldWait(circuit.reason),
    nextProbeAt: iso(circuit.nextProbeAt),
  };
}

/**
 * The words an older hookline ended an open circuit's reason with: the wait it had just set,
 * counted from then ("probe failed: HTTP 503; next probe in 1 h 30 min, as its Retry-After
 * asked"). Such a reason stays stored until the circuit next changes.
 */
const OLD_WAIT =
  /; next probe in \d+(?:\.\d+)? (?:ms|s|min|h|d)(?: \d+ (?:s|min|h))?(, as its Retry-After asked)?$/;

/**
 * A circuit's reason without the wait an older hookline wrote in it, which read as if counted from
 * now, and stayed after a changed URL brought the probe forward. When it said the receiver's
 * Retry-After set the wait, it says so as the breaker does now.
 */
function withoutOldWait(reason: string | null): string | null {
  const wait = reason === null ? null : OLD_WAIT.exec(reason);
  if (!reason || !wait) return reason;
  return reason.slice(0, wait.index) + (wait[1] ? PUT_OFF_BY_RETRY_AFTER : "");
}

/** The fields Svix's EndpointOut has, from the stored endpoint alone. */
export function endpointBase(ep: Endpoint) {
  return {
    id: ep.id,
    uid: ep.uid,
    url: ep.url,
    description: ep.description,
    version: ep.version,
    disabled: ep.disabled,
    filterTypes: ep.filterTypes,
    channels: ep.channels,
    rateLimit: ep.rateLimit,
    throttleRate: ep.rateLimit,
    metadata: ep.metadata,
    createdAt: iso(ep.createdAt),
    updatedAt: iso(ep.updatedAt),
  };
}

/** EndpointOut with hookline's extension fields. */
export async function endpointView(deps: ApiDeps, app: Application, ep: Endpoint) {
  const [circuit, stats] = await Promise.all([
    circuitOf(deps, ep),
    deps.store.getEndpointStats(ep.id),
  ]);
  return viewOf(deps, app, ep, circuit, stats);
}

/**
 * EndpointOut of an endpoint just made, before it is stored: no circuit opened and nothing sent
 * yet, so nothing to read (a keyed create's answer is made in the transaction that stores it).
 */
export function newEndpointView(deps: ApiDeps, app: Application, ep: Endpoint) {
  return viewOf(deps, app, ep, circuitShown(deps, ep, null), NO_STATS);
}

/**
 * A page of endpoints as EndpointOut: their stored circuits and stats in one read for the page,
 * not two per endpoint (a page of 250 made 500 store calls, at each refresh of the dashboard's
 * endpoints page).
 */
export async function endpointViews(deps: ApiDeps, app: Application, eps: Endpoint[]) {
  const stored = await deps.store.getEndpointsHealth(eps.map((ep) => ep.id));
  return eps.map((ep) => {
    const read = stored.get(ep.id);
    return viewOf(deps, app, ep, circuitShown(deps, ep, read?.circuit), read?.stats ?? NO_STATS);
  });
}

const NO_STATS: EndpointStats = {
  retryAfter: { honoured: 0, capped: 0, ignored: 0 },
  lastSuccessAt: null,
};

function viewOf(
  deps: ApiDeps,
  app: Application,
  ep: Endpoint,
  circuit: CircuitRecord,
  stats: EndpointStats,
) {
  const live = deps.engine.endpointStatus(ep.id);
  // The limit of the policy as stored, not the engine's: the engine takes a changed policy when
  // it next sends to the endpoint, and until then its live limit is the one before the change.
  const limit = resolvePolicy(
    deps.policyDefaults,
    app.deliveryPolicy,
    ep.deliveryPolicy,
  ).concurrencyLimit;
  return {
    ...endpointBase(ep),
    deliveryPolicy: ep.deliveryPolicy,
    disabledReason: ep.disabledReason,
    circuit: circuitOut(circuit),
    concurrency: {
      limit,
      effectiveLimit: live
        ? effectiveAfterLimitChange(live.effectiveLimit, live.limit, limit)
        : limit,
      inFlight: live?.inFlight ?? 0,
    },
    retryAfter: stats.retryAfter,
    lastSuccessAt: iso(stats.lastSuccessAt),
    // What a rotation without gracePeriodSeconds would give, so the dashboard can say so.
    rotationGracePeriodSeconds: Math.round(deps.config.secretGraceMs / 1000),
  };
}
