/**
 * The endpoints the engine knows, each with its runtime (queue, concurrency limit, circuit),
 * loaded from the store when first met and again after a change marks it stale, and the
 * applications they belong to. A map by endpoint id, so the engine walks and forgets runtimes as
 * it always did; what it adds is loading them, which must leave one runtime per endpoint.
 */
import type { Clock } from "../clock.js";
import type { Application } from "../domain/types.js";
import type { Store } from "../store/port.js";
import type { AdaptiveSettings } from "./adaptive-limit.js";
import type { BreakerSettings } from "./breaker.js";
import type { PolicyDefaults } from "./policy.js";
import { EndpointRuntime } from "./runtime.js";

export interface RuntimeDeps {
  store: Pick<Store, "getEndpoint" | "findApplication" | "getCircuit">;
  settings: {
    policyDefaults: PolicyDefaults;
    breaker: BreakerSettings;
    adaptive: AdaptiveSettings;
  };
  clock: Clock;
}

export class EndpointRuntimes extends Map<string, EndpointRuntime> {
  private readonly apps = new Map<string, Application | null>();

  constructor(private readonly deps: RuntimeDeps) {
    super();
  }

  /** The endpoint changed: its runtime reloads its settings before it is used again. */
  invalidateEndpoint(endpointId: string): void {
    const rt = this.get(endpointId);
    if (rt) rt.stale = true;
  }

  /** The application changed: every runtime of its endpoints reloads, and it is read again. */
  invalidateApplication(appId: string): void {
    this.apps.delete(appId);
    for (const rt of this.values()) if (rt.endpoint.appId === appId) rt.stale = true;
  }

  /** Forgets the application as read: the next of its endpoints to load reads it again. */
  forgetApplication(appId: string): void {
    this.apps.delete(appId);
  }

  /**
   * Forgets the applications as read that no runtime is of: once their endpoints are forgotten
   * (idle, or deleted), nothing else would ever let them go.
   */
  forgetUnusedApplications(): void {
    const used = new Set<string>();
    for (const rt of this.values()) used.add(rt.endpoint.appId);
    for (const appId of this.apps.keys()) if (!used.has(appId)) this.apps.delete(appId);
  }

  /** Any endpoint or application may have changed unheard of: each reloads before it is used. */
  invalidateAll(): void {
    this.apps.clear();
    for (const rt of this.values()) rt.stale = true;
  }

  /**
   * The endpoint's runtime, loaded (or its settings reloaded) when it is not known or stale.
   * Null when the endpoint no longer exists.
   */
  async load(endpointId: string): Promise<EndpointRuntime | null> {
    const known = this.get(endpointId);
    if (known && !known.stale) return known;
    const endpoint = await this.deps.store.getEndpoint(endpointId);
    if (!endpoint) {
      const rt = this.get(endpointId);
      if (rt && !rt.busy) this.delete(endpointId);
      return null;
    }
    const app = await this.appFor(endpoint.appId);
    // Dispatch reloads the runtime it holds, even one forgotten meanwhile. An open circuit's
    // probe may have been brought forward with the change (a new URL): taken from the store.
    if (known?.breaker.waitingForProbe()) {
      known.breaker.takeSoonerProbe(await this.deps.store.getCircuit(endpointId));
    }
    known?.reload(endpoint, app);
    // Another load of the endpoint may have finished while this one waited (a claim's admission
    // beside the recovery timer's): there is one runtime per endpoint, or its requests in flight
    // would be counted on two and its limit exceeded.
    let rt = this.get(endpointId);
    if (!rt) {
      const circuit = await this.deps.store.getCircuit(endpointId);
      rt = this.get(endpointId);
      if (!rt) {
        const { settings, clock } = this.deps;
        rt = new EndpointRuntime(endpoint, app, settings.policyDefaults, settings, clock, circuit);
        this.set(endpointId, rt);
      }
    }
    if (rt.stale) rt.reload(endpoint, app);
    return rt;
  }

  private async appFor(appId: string): Promise<Application | null> {
    if (!this.apps.has(appId)) this.apps.set(appId, await this.deps.store.findApplication(appId));
    return this.apps.get(appId) ?? null;
  }
}
