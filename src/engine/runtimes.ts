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

/** A load under way, told when a change is heard that what it reads may predate. */
interface Hearing {
  changed: boolean;
}

export class EndpointRuntimes extends Map<string, EndpointRuntime> {
  private readonly apps = new Map<string, Application | null>();
  /** The loads under way, by endpoint. */
  private readonly loading = new Map<string, Set<Hearing>>();
  /** How many times every runtime was forgotten at once (see `clear`). */
  private clears = 0;

  constructor(private readonly deps: RuntimeDeps) {
    super();
  }

  /**
   * Forgets every runtime (a worker declared dead drops all it holds). A load begun before puts
   * none back: what it loads for, a claim of the identity the worker gave up, is another's now.
   */
  override clear(): void {
    this.clears++;
    super.clear();
  }

  /** The endpoint changed: its runtime reloads its settings before it is used again. */
  invalidateEndpoint(endpointId: string): void {
    const rt = this.get(endpointId);
    if (rt) rt.stale = true;
    for (const hearing of this.loading.get(endpointId) ?? []) hearing.changed = true;
  }

  /** The application changed: every runtime of its endpoints reloads, and it is read again. */
  invalidateApplication(appId: string): void {
    this.apps.delete(appId);
    for (const rt of this.values()) if (rt.endpoint.appId === appId) rt.stale = true;
    // Which application a load under way reads is not known until it has read its endpoint.
    this.hearEverywhere();
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
    this.hearEverywhere();
  }

  private hearEverywhere(): void {
    for (const hearings of this.loading.values()) for (const h of hearings) h.changed = true;
  }

  /**
   * The endpoint's runtime, loaded (or its settings reloaded) when it is not known or stale.
   * Null when the endpoint no longer exists, or when every runtime was forgotten while it loaded
   * and it had none in hand (see `clear`).
   */
  load(endpointId: string): Promise<EndpointRuntime | null> {
    const clears = this.clears;
    return this.loadRuntime(endpointId, this.get(endpointId), () => this.clears === clears);
  }

  /**
   * Reloads the settings of a stale runtime the dispatcher holds, known or forgotten, and never
   * puts a runtime in the map: one forgotten (handed back, dropped on joining the fleet again,
   * evicted) before or while its settings are read stays forgotten. Made anew, it stayed, for an
   * endpoint perhaps owned by another worker by then, with its circuit as read at that moment:
   * taken again, the endpoint was sent to by it instead of being loaded afresh. False when the
   * endpoint no longer exists.
   */
  async refresh(rt: EndpointRuntime): Promise<boolean> {
    return (await this.loadRuntime(rt.endpoint.id, rt, () => false)) !== null;
  }

  /** Loads from `start` (the runtime in hand, if any); a new one goes in the map if `mayAdd()`. */
  private async loadRuntime(
    endpointId: string,
    start: EndpointRuntime | undefined,
    mayAdd: () => boolean,
  ): Promise<EndpointRuntime | null> {
    for (let known = start; ;) {
      if (known && !known.stale) return known;
      const hearing: Hearing = { changed: false };
      let hearings = this.loading.get(endpointId);
      if (!hearings) this.loading.set(endpointId, (hearings = new Set()));
      hearings.add(hearing);
      let rt: EndpointRuntime | null;
      try {
        rt = await this.loadOnce(endpointId, known, hearing, mayAdd);
      } finally {
        hearings.delete(hearing);
        if (hearings.size === 0 && this.loading.get(endpointId) === hearings) {
          this.loading.delete(endpointId);
        }
      }
      if (!rt || !hearing.changed) return rt;
      // A change was heard while the settings were read: what was read may be from before it was
      // committed (a round trip to PostgreSQL, a signal from another process), and taken as
      // current it would stay until the next change, a URL changed or a disabling lost for as
      // long as the engine keeps the endpoint. Read again.
      rt.stale = true;
      known = rt;
    }
  }

  private async loadOnce(
    endpointId: string,
    known: EndpointRuntime | undefined,
    hearing: Hearing,
    mayAdd: () => boolean,
  ): Promise<EndpointRuntime | null> {
    const endpoint = await this.deps.store.getEndpoint(endpointId);
    if (!endpoint) {
      const rt = this.get(endpointId);
      if (rt && !rt.busy) this.delete(endpointId);
      return null;
    }
    const app = await this.appFor(endpoint.appId, hearing);
    // The runtime in hand is reloaded, even one forgotten meanwhile. An open circuit's probe may
    // have been brought forward with the change (a new URL): taken from the store.
    if (known?.breaker.waitingForProbe()) {
      known.breaker.takeSoonerProbe(await this.deps.store.getCircuit(endpointId));
    }
    known?.reload(endpoint, app);
    // Another load of the endpoint may have finished while this one waited (a claim's admission
    // beside the recovery timer's): there is one runtime per endpoint, or its requests in flight
    // would be counted on two and its limit exceeded.
    let rt = this.get(endpointId);
    if (!rt) {
      // None known: one in hand that was forgotten stays so, and none is made unless asked for
      // (see `refresh` and `clear`).
      if (!mayAdd()) return known ?? null;
      const circuit = await this.deps.store.getCircuit(endpointId);
      rt = this.get(endpointId);
      if (!rt) {
        if (!mayAdd()) return known ?? null;
        const { settings, clock } = this.deps;
        rt = new EndpointRuntime(endpoint, app, settings.policyDefaults, settings, clock, circuit);
        this.set(endpointId, rt);
      }
    }
    if (rt.stale) rt.reload(endpoint, app);
    return rt;
  }

  private async appFor(appId: string, hearing: Hearing): Promise<Application | null> {
    if (this.apps.has(appId)) return this.apps.get(appId) ?? null;
    const app = await this.deps.store.findApplication(appId);
    // Read perhaps before a change heard meanwhile: not kept for other loads (this one reads again).
    if (!hearing.changed) this.apps.set(appId, app);
    return app;
  }
}
