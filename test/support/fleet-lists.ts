/**
 * What an API process lists of a fleet's work, read while its workers come and go: checked for
 * what must hold whatever a worker is doing when it dies, and for when the work is all settled.
 */
import type { Svix } from "svix";
import type { FleetReceiver } from "./fleet-receiver.js";
import { call, TEST_TOKEN } from "./process.js";

type DeliveryStatus = { success: number; pending: number; sending: number; fail: number };

/**
 * Reads one application's lists in turns, noting in `problems` what should never be seen: a
 * message list that misses a message accepted before it began, or holds one twice; an attempt
 * that disappears or changes; an attempt the receiver never answered so; a message whose
 * deliveries do not add up to its endpoints, or whose settled deliveries come undone.
 */
export class ListWatcher {
  readonly problems: string[] = [];
  private readonly attempts = new Map<string, { msgId: string; code: number }>();
  private readonly settled = new Map<string, { success: number; fail: number }>();
  private turn = 0;

  constructor(
    private readonly at: {
      svix: Svix;
      url: string;
      appId: string;
      rx: FleetReceiver;
      /** The receiver's path of each endpoint, by endpoint id. */
      pathOf: ReadonlyMap<string, string>;
      /** Messages answered 202 so far (id → payload index). */
      accepted: ReadonlyMap<string, number>;
    },
  ) {}

  /** One turn: the whole message list, the newest messages' statuses, or two messages' attempts. */
  async read(): Promise<void> {
    const turn = this.turn++;
    if (turn % 4 === 0) return this.messages();
    if (turn % 4 === 1) return this.statuses();
    const ids = [...this.at.accepted.keys()];
    if (ids.length === 0) return;
    // The newest message, and one further back, each read again in later turns.
    await this.attemptsOf(ids[ids.length - 1]!);
    await this.attemptsOf(ids[turn % ids.length]!);
  }

  private async messages(): Promise<void> {
    const before = new Set(this.at.accepted.keys());
    const listed = new Set<string>();
    let iterator: string | null | undefined;
    for (let done = false; !done;) {
      const page = await this.at.svix.message.list(this.at.appId, {
        limit: 250,
        iterator,
        withContent: false,
      });
      for (const m of page.data) {
        if (listed.has(m.id)) this.problems.push(`the message list holds ${m.id} twice`);
        listed.add(m.id);
      }
      ({ iterator, done } = page);
    }
    const missing = [...before].filter((id) => !listed.has(id));
    if (missing.length) this.problems.push(`the message list misses ${missing.join(", ")}`);
  }

  private async attemptsOf(msgId: string): Promise<void> {
    const page = await this.at.svix.messageAttempt.listByMsg(this.at.appId, msgId, {
      limit: 250,
    });
    const now = new Map(page.data.map((a) => [a.id, a]));
    for (const [id, was] of this.attempts) {
      if (was.msgId !== msgId) continue;
      const a = now.get(id);
      if (a?.responseStatusCode !== was.code) this.problems.push(`attempt ${id} changed or went`);
    }
    const counts = new Map<string, number>();
    for (const a of page.data) {
      this.attempts.set(a.id, { msgId, code: a.responseStatusCode });
      const key = `${this.at.pathOf.get(a.endpointId)} ${a.responseStatusCode}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    // Read after the API answered: every answer an attempt records was given before.
    for (const [key, n] of counts) {
      const [path, code] = key.split(" ");
      const answered = this.at.rx.requests.filter(
        (r) => r.msgId === msgId && r.path === path && r.status === Number(code),
      ).length;
      if (n > answered) {
        this.problems.push(`${msgId}: ${n} attempts ${key}, ${answered} such answers`);
      }
    }
  }

  private async statuses(): Promise<void> {
    const page = await call<{ data: { id: string; deliveryStatus: DeliveryStatus }[] }>(
      this.at.url,
      "GET",
      `/api/v1/app/${this.at.appId}/msg?with_status=true&with_content=false&limit=100`,
    );
    for (const m of page.body.data) {
      const s = m.deliveryStatus;
      if (s.success + s.pending + s.sending + s.fail !== this.at.pathOf.size) {
        this.problems.push(`${m.id}: its deliveries add up to ${JSON.stringify(s)}`);
      }
      const was = this.settled.get(m.id);
      if (was && (s.success < was.success || s.fail < was.fail)) {
        this.problems.push(`${m.id}: settled deliveries came undone: ${JSON.stringify(s)}`);
      }
      this.settled.set(m.id, { success: s.success, fail: s.fail });
    }
  }
}

/**
 * How many messages of the application the API does not show settled (each delivery succeeded or
 * failed for good), counting those it does not list at all among `expected`.
 */
export async function unsettledMessages(
  url: string,
  appId: string,
  expected: number,
): Promise<number> {
  let open = 0;
  let seen = 0;
  let iterator: string | null = null;
  for (let done = false; !done;) {
    const res = await fetch(
      `${url}/api/v1/app/${appId}/msg?with_status=true&with_content=false&limit=250` +
        (iterator ? `&iterator=${iterator}` : ""),
      { headers: { authorization: `Bearer ${TEST_TOKEN}` } },
    );
    const page = (await res.json()) as {
      data: { deliveryStatus: DeliveryStatus }[];
      iterator: string | null;
      done: boolean;
    };
    for (const m of page.data) {
      seen++;
      if (m.deliveryStatus.pending + m.deliveryStatus.sending > 0) open++;
    }
    ({ iterator, done } = page);
  }
  return open + Math.abs(expected - seen);
}
