/** One read both the DLQ service and the operational webhooks make through the store's port. */
import type { Attempt } from "../domain/types.js";
import type { Store } from "./port.js";

/** Which delivery: its id, and the message and endpoint its attempts are listed under. */
export interface DeliveryRef {
  deliveryId: string;
  appId: string;
  messageId: string;
  endpointId: string;
}

/**
 * The delivery's latest attempt, or null if it made none. Attempts are listed by message and
 * endpoint, where a resend's or replay's deliveries share them: the newest page holds this one's
 * unless a later delivery of the same message to that endpoint has made a page of its own since.
 */
export async function lastAttemptOf(store: Store, d: DeliveryRef): Promise<Attempt | null> {
  const page = await store.listAttempts({
    appId: d.appId,
    messageId: d.messageId,
    endpointId: d.endpointId,
    limit: 250,
    order: "descending",
  });
  return page.data.find((a) => a.deliveryId === d.deliveryId) ?? null;
}
