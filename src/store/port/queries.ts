/** Reading through the port: pages, cursors and the filters of lists. */
import type { DeliveryState, Message } from "../../domain/types.js";

/** Cursor pagination as the Svix API does it: `iterator` is the last id of the previous page. */
export interface PageQuery {
  limit: number;
  iterator?: string | null;
  order?: "ascending" | "descending";
}

export interface Page<T> {
  data: T[];
  iterator: string | null;
  done: boolean;
}

/** Which applications a list leaves out, by their endpoints. */
export interface ApplicationFilter {
  /** Leave out applications that have no endpoint. */
  excludeWithNoEndpoints?: boolean;
  /** Leave out applications that have endpoints, all of them disabled. */
  excludeWithOnlyDisabledEndpoints?: boolean;
}

/** Which API tokens a list takes. */
export interface ApiTokenQuery extends PageQuery {
  /** Only those bound to this application. */
  appId?: string;
  /** Only those not revoked. */
  unrevoked?: boolean;
}

/** Which event types a list takes. */
export interface EventTypeQuery extends PageQuery {
  includeArchived?: boolean;
  /**
   * Only those a token given these feature flags sees (see domain/feature-flags.ts): an
   * application token's view. Absent: every event type, as admin tokens see them.
   */
  featureFlags?: readonly string[];
}

/** Which messages a list takes, by the message's own fields; every one given must match. */
export interface MessageFilter {
  /** Any of these event types. */
  eventTypes?: string[];
  /** One of the message's channels. */
  channel?: string;
  /** One of the message's tags. */
  tag?: string;
}

/** How much of its messages' payloads a read takes. */
export interface ContentQuery {
  /** False: none is read, and each message's payload is empty (an answer without content). */
  withContent?: boolean;
  /**
   * With content, a page's bound on its payloads' bytes as stored: it ends before the message
   * that would pass it (the first always comes), `done` false and its iterator at its last.
   */
  maxPayloadBytes?: number;
}

export interface MessageQuery extends PageQuery, MessageFilter, ContentQuery {
  before?: number;
  after?: number;
}

/** Attempts, filtered by their own fields and by their message's (MessageFilter). */
export interface AttemptQuery extends PageQuery, MessageFilter {
  appId: string;
  endpointId?: string;
  messageId?: string;
  /** Svix status number: 0 success, 2 fail. */
  outcome?: "success" | "fail";
  /** Svix status code class: 0, no HTTP answer at all; 100 to 500, a status in that hundred. */
  statusCodeClass?: 0 | 100 | 200 | 300 | 400 | 500;
  before?: number;
  after?: number;
}

/** Which of an endpoint's messages `Store.listEndpointMessages` lists. */
export interface EndpointMessageQuery extends PageQuery, MessageFilter, ContentQuery {
  appId: string;
  endpointId: string;
  /** Only those whose latest delivery to the endpoint is in this state. */
  state?: DeliveryState;
  /** Created before, after this time. */
  before?: number;
  after?: number;
}

/** A message sent to an endpoint, with where its latest delivery there stands. */
export interface EndpointMessage {
  message: Message;
  state: DeliveryState;
  /** When it is tried next, if it is pending. */
  nextAttemptAt: number | null;
  /** Its attempts so far, and when the first was made: where its retry window stands. */
  attemptCount: number;
  firstAttemptAt: number | null;
}

/**
 * Which of an endpoint's messages `Store.endpointMessageStates` counts: those of its application
 * created in a window, which must have a start (the read walks the window's messages).
 */
export interface MessageStateQuery {
  appId: string;
  endpointId: string;
  since: number;
  until?: number;
}
