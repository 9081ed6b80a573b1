/** Starts the receiver (receiver.ts) in its own process and talks to it over IPC. */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { cpuOf } from "./process-table.js";
import type { GroupRecord, GroupStats, ReceiverCommand, ReceiverRule } from "./receiver.js";

// Each command without its sequence number, which ask() adds.
type Request = ReceiverCommand extends infer C
  ? C extends unknown
    ? Omit<C, "seq">
    : never
  : never;

/** The receiver child process: one for the whole run, shared by the ceiling and every scenario. */
export class Receiver {
  private seq = 0;
  private readonly pending = new Map<number, (result: unknown) => void>();
  port = 0;

  private constructor(readonly child: ChildProcess) {
    child.on("message", (m: { seq: number; result: unknown }) => {
      this.pending.get(m.seq)?.(m.result);
      this.pending.delete(m.seq);
    });
  }

  static async start(): Promise<Receiver> {
    const child = fork(fileURLToPath(new URL("./receiver.ts", import.meta.url)), [], {
      execArgv: ["--import", "tsx"],
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const r = new Receiver(child);
    r.port = (await r.ask({ cmd: "listen" })) as number;
    return r;
  }

  /** Base URL, e.g. http://127.0.0.1:41234 */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** CPU time the receiver has used so far (user + system), in ms; null once it ended. */
  cpuMs(): number | null {
    return cpuOf(`/proc/${this.pid}/stat`);
  }

  private ask(req: Request): Promise<unknown> {
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.pending.set(seq, resolve);
      this.child.send({ ...req, seq });
    });
  }

  async rule(group: string, rule: ReceiverRule): Promise<void> {
    await this.ask({ cmd: "rule", group, rule });
  }

  /** Forgets every group and rule. */
  async reset(): Promise<void> {
    await this.ask({ cmd: "reset" });
  }

  async stats(group: string): Promise<GroupStats> {
    return (await this.ask({ cmd: "stats", group })) as GroupStats;
  }

  /** Arrival times (and ids, if recorded) of a group. */
  async record(group: string): Promise<GroupRecord> {
    return (await this.ask({ cmd: "record", group })) as GroupRecord;
  }

  /** Resolves when the group has seen `count` requests, or after `timeoutMs` with what it saw. */
  async waitFor(group: string, count: number, timeoutMs: number): Promise<GroupStats> {
    return (await this.ask({ cmd: "waitFor", group, count, timeoutMs })) as GroupStats;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once("exit", r));
    this.child.disconnect();
    await exited;
  }
}
