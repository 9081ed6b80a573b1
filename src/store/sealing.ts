/**
 * What each adapter seals before writing and opens after reading, so the engine and the API only
 * ever see plaintext: endpoint secrets and custom headers (credentials of the receiver) and
 * message payloads (the dead-letter queue reads the same bytes), and the answers kept for
 * idempotency keys (they repeat payloads and freshly issued tokens).
 */
import type { DeadLetterRecord, Endpoint, Message } from "../domain/types.js";
import type { FieldCipher } from "../security/cipher.js";
import type {
  AcceptResult,
  ClaimedDelivery,
  IdempotencyState,
  KeptAnswer,
  NewMessage,
} from "./port.js";

/** Seals and opens the sensitive fields of domain records. */
export class Sealing {
  constructor(readonly cipher: FieldCipher) {}

  /**
   * The endpoint as stored. A sealed field is a JSON string (the envelope) where the plaintext one
   * is a JSON object, so the column type does not change and older rows stay readable; the cast is
   * the price of carrying it through the existing row code.
   */
  endpointIn(ep: Endpoint): Endpoint {
    if (!this.cipher.enabled) return ep;
    return {
      ...ep,
      secrets: this.cipher.sealText(JSON.stringify(ep.secrets)) as unknown as Endpoint["secrets"],
      headers: this.cipher.sealText(JSON.stringify(ep.headers)) as unknown as Endpoint["headers"],
    };
  }

  endpointOut(ep: Endpoint): Endpoint {
    return { ...ep, secrets: this.openJson(ep.secrets), headers: this.openJson(ep.headers) };
  }

  endpointOrNull(ep: Endpoint | null): Endpoint | null {
    return ep && this.endpointOut(ep);
  }

  messageIn(msg: NewMessage): NewMessage {
    if (!this.cipher.enabled) return msg;
    const intake = msg.intake;
    const keyAnswer = msg.keyAnswer;
    return {
      ...msg,
      payload: this.cipher.sealBytes(msg.payload),
      // No closure made for the many posts without a key.
      keyAnswer: keyAnswer && this.keptAnswerIn(keyAnswer, (r) => this.acceptedOut(msg, r)),
      // Written sealed, handed to the engine open: deliveries it takes carry the caller's bytes.
      intake: intake && {
        room: (endpointId, forEndpoint, all) => intake.room(endpointId, forEndpoint, all),
        leaseUntil: () => intake.leaseUntil(),
        handOver: (taken) => intake.handOver(taken.map((d) => ({ ...d, payload: msg.payload }))),
      },
    };
  }

  /** What accepting answers: the caller's own plaintext, or the stored duplicate opened. */
  acceptedOut(msg: NewMessage, r: AcceptResult): AcceptResult {
    const message = r.created ? { ...r.message, payload: msg.payload } : this.messageOut(r.message);
    return { ...r, message };
  }

  messageOut(m: Message): Message {
    return { ...m, payload: this.cipher.openBytes(m.payload) };
  }

  messageOrNull(m: Message | null): Message | null {
    return m && this.messageOut(m);
  }

  /** Opens each message's payload once per batch, however many deliveries share it. */
  claimedOut(batch: ClaimedDelivery[]): ClaimedDelivery[] {
    const opened = new Map<string, Buffer>();
    for (const d of batch) {
      let plain = opened.get(d.messageId);
      if (!plain) {
        plain = this.cipher.openBytes(d.payload);
        opened.set(d.messageId, plain);
      }
      d.payload = plain;
    }
    return batch;
  }

  recordOut(r: DeadLetterRecord | null): DeadLetterRecord | null {
    return r && { ...r, payload: r.payload && this.cipher.openBytes(r.payload) };
  }

  /**
   * A keyed request's answer kept in its write's transaction (see `KeptAnswer`): told what was
   * written as the caller will be (opened by `out`, where what is stored is sealed); the answer
   * it makes kept sealed.
   */
  keptAnswerIn<R>(
    kept: KeptAnswer<R> | undefined,
    out?: (written: R) => R,
  ): KeptAnswer<R> | undefined {
    if (!kept) return undefined;
    return {
      held: kept.held,
      answer: (written) => {
        const made = kept.answer(out ? out(written) : written);
        return made && { status: made.status, body: this.answerIn(made.body) };
      },
    };
  }

  /** An idempotency key's answer as stored. */
  answerIn(body: string): string {
    return this.cipher.sealText(body);
  }

  /**
   * A replayed answer opened. Answers are JSON or empty, never starting with the envelope's
   * prefix, so one stored before a key was configured passes through as it is.
   */
  idempotencyOut(state: IdempotencyState): IdempotencyState {
    return state.kind === "replay" ? { ...state, body: this.cipher.openText(state.body) } : state;
  }

  /** A sealed text column re-sealed with the current key (or opened, with none), or null. */
  resealText(stored: string): string | null {
    if (this.cipher.isCurrent(stored)) return null;
    return this.cipher.sealText(this.cipher.openText(stored));
  }

  /** A sealed JSON column (as the driver decoded it) re-sealed with the current key, or null. */
  resealJson(value: unknown): string | null {
    if (typeof value === "string" && this.cipher.isCurrent(value)) return null;
    if (typeof value !== "string" && !this.cipher.enabled) return null;
    const plain = typeof value === "string" ? this.cipher.openText(value) : JSON.stringify(value);
    return JSON.stringify(this.cipher.enabled ? this.cipher.sealText(plain) : JSON.parse(plain));
  }

  /** A stored payload re-sealed with the current key, or null when it already is. */
  resealBytes(stored: Buffer): Buffer | null {
    if (this.cipher.isCurrent(stored)) return null;
    return this.cipher.sealBytes(this.cipher.openBytes(stored));
  }

  /** Opens a stored JSON column and payload; throws when the configured keys cannot. */
  verify(json: unknown[], payloads: Buffer[]): void {
    for (const v of json) this.openJson(v);
    for (const p of payloads) this.cipher.openBytes(p);
  }

  /**
   * Checks that each value's key is configured, without opening it: cheap enough for every
   * endpoint at start-up. Plaintext values pass.
   */
  verifyKeys(json: unknown[]): void {
    for (const v of json) if (typeof v === "string") this.cipher.assertOpenable(v);
  }

  private openJson<T>(value: T): T {
    return typeof value === "string" ? (JSON.parse(this.cipher.openText(value)) as T) : value;
  }
}
