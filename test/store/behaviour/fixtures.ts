/**
 * Builders shared by the store behaviour suite. They talk only to the port, so the same helpers
 * serve every adapter.
 */
import { createHash, randomBytes } from "node:crypto";
import { expect } from "vitest";
import type { ApiToken, Application, Endpoint, EventType } from "../../../src/domain/types.js";
import { newId } from "../../../src/ids.js";
import type { FieldCipher } from "../../../src/security/cipher.js";
import type {
  AcceptResult,
  AlertRecord,
  ClaimedDelivery,
  DeliveryOutcome,
  NewMessage,
  Page,
  PageQuery,
  Store,
  StoreLimits,
} from "../../../src/store/port.js";

/** Makes a fresh, empty store (with the given limits) and a way to dispose of it. */
export type MakeStore = (
  limits?: Partial<StoreLimits>,
  cipher?: FieldCipher,
) => Promise<{ store: Store; cleanup: () => Promise<void> }>;

/** The store of the running test; read it inside tests and hooks only. */
export interface StoreUnderTest {
  readonly store: Store;
  /** Replaces the test's store with a fresh, empty one opened with these limits. */
  withLimits(limits: Partial<StoreLimits>): Promise<Store>;
  /** Replaces the test's store with a fresh, empty one sealing values with this cipher. */
  withCipher(cipher: FieldCipher): Promise<Store>;
}

export const T0 = Date.UTC(2026, 0, 1);
export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

/** An endpoint's attempts and retry window for `pauseEndpoint` that leave every retry room. */
export const ROOMY_LADDER = { attempts: 10, windowMs: 24 * HOUR };

export type AttemptRecord = NonNullable<DeliveryOutcome["attempt"]>;

export function aSecret(): string {
  return "whsec_" + randomBytes(24).toString("base64");
}

export function anApplication(overrides: Partial<Application> = {}): Application {
  return {
    id: newId("app"),
    uid: null,
    name: "Acme Corp",
    rateLimit: null,
    metadata: {},
    deliveryPolicy: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

/** The hex SHA-256 a token is stored as. */
export const hashOf = (plain: string): string => createHash("sha256").update(plain).digest("hex");

export function aToken(overrides: Partial<ApiToken> = {}): ApiToken {
  return {
    id: newId("tok", T0),
    name: "ci",
    scope: "admin",
    appId: null,
    hash: hashOf(newId("tok")),
    createdAt: T0,
    revokedAt: null,
    expiresAt: null,
    featureFlags: null,
    ...overrides,
  };
}

export function anEndpoint(appId: string, overrides: Partial<Endpoint> = {}): Endpoint {
  return {
    id: newId("ep"),
    appId,
    uid: null,
    url: "https://receiver.example/hooks",
    description: "",
    version: 1,
    disabled: false,
    disabledReason: null,
    filterTypes: null,
    channels: null,
    headers: {},
    metadata: {},
    rateLimit: null,
    secrets: { current: aSecret(), previous: [] },
    deliveryPolicy: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

export function anAlert(id: string, overrides: Partial<AlertRecord> = {}): AlertRecord {
  return {
    id,
    rule: "queue_lag",
    severity: "critical",
    summary: "behind",
    endpointId: null,
    value: 400.5,
    threshold: 300,
    since: T0,
    resolvedAt: null,
    supersededBy: null,
    ...overrides,
  };
}

/** Saves alerts as `holder`, the worker evaluating them; forgets none unless told. */
export function saveAlerts(
  store: Store,
  holder: string,
  alerts: AlertRecord[],
  forgetResolvedBefore = 0,
): Promise<string[]> {
  return store.saveAlerts({ holder, alerts, forgetResolvedBefore });
}

export function anEventType(name: string, overrides: Partial<EventType> = {}): EventType {
  return {
    name,
    description: `${name} happened`,
    archived: false,
    deprecated: false,
    featureFlags: null,
    groupName: null,
    schemas: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

/** Creates an application with one endpoint per entry of `endpoints`. */
export async function seedApp(
  store: Store,
  endpoints: Partial<Endpoint>[] = [{}],
): Promise<{ app: Application; endpoints: Endpoint[] }> {
  const app = await store.createApplication(anApplication());
  const eps: Endpoint[] = [];
  for (const overrides of endpoints) {
    eps.push(await store.createEndpoint(anEndpoint(app.id, overrides)));
  }
  return { app, endpoints: eps };
}

export type MessageInput = Partial<Omit<NewMessage, "appId" | "newDeliveryId">>;

/** Accepts a message for `appId`; unspecified fields get plain defaults, due at `now`. */
export function accept(
  store: Store,
  appId: string,
  input: MessageInput = {},
): Promise<AcceptResult> {
  const now = input.now ?? T0;
  return store.acceptMessage({
    id: newId("msg"),
    eventType: "invoice.paid",
    eventId: null,
    channels: null,
    tags: null,
    payload: Buffer.from('{"ok":true}'),
    ...input,
    appId,
    now,
    dueAt: input.dueAt ?? now,
    newDeliveryId: () => newId("dlv"),
  });
}

/** Claims every delivery due by `now`. */
export function claimAll(
  store: Store,
  now: number,
  excludeEndpoints: readonly string[] = [],
): Promise<ClaimedDelivery[]> {
  return store.claimDue({ now, limit: 1_000, excludeEndpoints, leaseUntil: now + MINUTE });
}

export function anAttempt(at: number, overrides: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    id: newId("atmpt"),
    at,
    trigger: "first",
    url: "https://receiver.example/hooks",
    status: 200,
    error: null,
    errorDetail: null,
    durationMs: 42,
    responseSnippet: "ok",
    outcome: "success",
    retryAfterMs: null,
    retryAfterIgnored: null,
    ...overrides,
  };
}

/** A failed attempt: HTTP 503 unless overridden. */
export function aFailedAttempt(at: number, overrides: Partial<AttemptRecord> = {}): AttemptRecord {
  return anAttempt(at, {
    status: 503,
    responseSnippet: "unavailable",
    outcome: "retryable",
    ...overrides,
  });
}

export interface OutcomeInput {
  at: number;
  next: DeliveryOutcome["next"];
  /** Defaults to a successful attempt at `at`; pass null for an attempt-less end. */
  attempt?: AttemptRecord | null;
  retryAfter?: DeliveryOutcome["retryAfter"];
  disableEndpoint?: string | null;
  signatureHeaders?: Record<string, string>;
}

/** The outcome of one attempt at a claimed delivery. */
export function outcomeFor(d: ClaimedDelivery, input: OutcomeInput): DeliveryOutcome {
  return {
    deliveryId: d.id,
    endpointId: d.endpointId,
    messageId: d.messageId,
    appId: d.appId,
    at: input.at,
    attempt: input.attempt === undefined ? anAttempt(input.at) : input.attempt,
    signatureHeaders: input.signatureHeaders ?? {},
    next: input.next,
    retryAfter: input.retryAfter ?? null,
    disableEndpoint: input.disableEndpoint ?? null,
    claimedBy: d.claimedBy,
    // As the engine sets it (attempt.ts).
    resend: d.origin === "resend",
  };
}

export function succeeded(d: ClaimedDelivery, at: number): DeliveryOutcome {
  return outcomeFor(d, { at, next: { kind: "succeeded" } });
}

export function retried(d: ClaimedDelivery, at: number, nextAt: number): DeliveryOutcome {
  return outcomeFor(d, {
    at,
    attempt: aFailedAttempt(at, { trigger: d.attemptCount === 0 ? "first" : "retry" }),
    next: { kind: "retry", at: nextAt, delayMs: nextAt - at },
  });
}

/** The one element of `items`, failing the test when there is not exactly one. */
export function only<T>(items: readonly T[]): T {
  if (items.length !== 1) throw new Error(`expected exactly one item, got ${items.length}`);
  return items[0]!;
}

/** Walks every page of a listing, checking each page's size and `done` flag on the way. */
export async function allPages<T>(
  list: (q: PageQuery) => Promise<Page<T>>,
  q: PageQuery,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let iterator: string | null = null;
  for (let pages = 1; pages < 100; pages++) {
    const page: Page<T> = await list({ ...q, iterator });
    expect(page.data.length).toBeLessThanOrEqual(q.limit);
    items.push(...page.data);
    if (page.done) return { items, pages };
    expect(page.data).toHaveLength(q.limit);
    iterator = page.iterator;
  }
  throw new Error("listing never reported done");
}
