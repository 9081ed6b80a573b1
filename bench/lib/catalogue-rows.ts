/**
 * The application and endpoint rows the store-only benchmarks (`pg-claim-cost.ts`,
 * `store-turns.ts`) create through a store's port, without an API in front of it.
 */
import type { Application, Endpoint } from "../../src/domain/types.js";

/** A plain application row. */
export function benchApplication(id: string, name: string, now: number): Application {
  return {
    id,
    uid: null,
    name,
    rateLimit: null,
    metadata: {},
    deliveryPolicy: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** A plain endpoint row of `appId`, with one signing secret. */
export function benchEndpoint(id: string, appId: string, url: string, now: number): Endpoint {
  return {
    id,
    appId,
    uid: null,
    url,
    description: "",
    version: 1,
    disabled: false,
    disabledReason: null,
    filterTypes: null,
    channels: null,
    headers: {},
    metadata: {},
    rateLimit: null,
    secrets: { current: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", previous: [] },
    deliveryPolicy: null,
    createdAt: now,
    updatedAt: now,
  };
}
