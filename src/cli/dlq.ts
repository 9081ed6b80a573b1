/**
 * `hookline dlq …`: the operator's runbook from a terminal, against a running hookline over its
 * API. Human output by default; `--json` prints the API's answers for scripts.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import type { z } from "zod";
import type {
  DeadLetterOut,
  DeadLetterRecordOut,
  DeadLetterSummaryOut,
  ReplayJobOut,
  ReplayOut,
} from "../api/schemas/dead-letter.js";
import { memberBytes } from "../api/payload-bytes.js";
import { MAX_TIMEOUT_MS } from "../clock.js";
import { ConfigError, HooklineError } from "../errors.js";
import { ApiClient, connectionOf, type OptionNames, withConnectionOptions } from "./client.js";
import { ago, duration, parseTime, printable, table } from "./format.js";
import { ProgressBar, renderProgress } from "./progress.js";

type RecordOut = z.output<typeof DeadLetterOut>;
type WholeRecord = z.output<typeof DeadLetterRecordOut>;
type Job = z.output<typeof ReplayJobOut>;
type Page<T> = { data: T[]; iterator: string | null; done: boolean };

/** What the entry point read from the environment (HOOKLINE_URL, HOOKLINE_TOKEN). */
export interface DlqDefaults {
  url?: string;
  token?: string;
}

/** The CLI's outside world, passed in so commands can be run and tested without a process. */
export interface CliIo {
  out: { write(s: string): unknown; isTTY?: boolean; columns?: number };
  now(): number;
  sleep(ms: number): Promise<void>;
  setExitCode(code: number): void;
  /**
   * Until the returned function is called, Ctrl-C (or SIGTERM, SIGHUP) prints `say()` on stderr
   * and ends the command; absent, a signal ends it as it would any process.
   */
  onInterrupt?(say: () => string): () => void;
}

interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** Options shared by the commands that select records. */
interface Selecting {
  app?: string;
  endpoint?: string;
  class?: string;
  eventType?: string;
  since?: string;
  until?: string;
}

interface ListOptions extends Selecting {
  state?: string;
  limit: string;
  iterator?: string;
  oldestFirst?: boolean;
}

interface BulkOptions extends Selecting {
  ids?: string;
  rate?: number;
  canary?: number;
  threshold?: number;
  startAt?: string;
  note?: string;
  detach?: boolean;
  interval: number;
}

const FINISHED = new Set(["completed", "stopped", "cancelled"]);
/** The shortest --interval between looks at a job. */
const MIN_INTERVAL_MS = 100;

/** The options of list and summary, by the query field each sets (for the API's refusals). */
const QUERY_OPTIONS: OptionNames = {
  "query.app_id": "--app",
  "query.endpoint_id": "--endpoint",
  "query.state": "--state",
  "query.failure_class": "--class",
  "query.event_type": "--event-type",
  "query.since": "--since",
  "query.until": "--until",
  "query.limit": "--limit",
  "query.iterator": "--iterator",
};

/** The options of replay-bulk, by the body field each sets. */
const BULK_OPTIONS: OptionNames = {
  "body.appId": "--app",
  "body.endpointId": "--endpoint",
  "body.since": "--since",
  "body.until": "--until",
  "body.failureClass": "--class",
  "body.eventType": "--event-type",
  "body.ids": "--ids",
  "body.ratePerSecond": "--rate",
  "body.canarySize": "--canary",
  "body.canaryThreshold": "--threshold",
  "body.startAt": "--start-at",
  "body.note": "--note",
};

const NOTE_OPTION: OptionNames = { "body.note": "--note" };

/** The `dlq` command and its subcommands. */
export function dlqCommand(defaults: DlqDefaults, io: CliIo): Command {
  const dlq = withConnectionOptions(
    new Command("dlq").description(
      "inspect, replay and close dead-letter records of a running hookline",
    ),
  ).option("--json", "print the API's JSON answers, for scripts");

  const print = (s: string): void => void io.out.write(`${s}\n`);
  const json = (v: unknown): void => print(JSON.stringify(v, null, 2));
  const setup = (cmd: Command, names: OptionNames = {}) => {
    const o = cmd.optsWithGlobals<GlobalOptions>();
    const api = new ApiClient(connectionOf(o, defaults), names);
    return { api, asJson: o.json === true };
  };
  const time =
    (name: string, direction: "back" | "ahead" = "back") =>
    (value: string) => {
      const t = parseTime(value, io.now(), direction);
      if (!t) {
        throw new InvalidArgumentError(
          `${name}: use ISO-8601 (a time with Z or an offset, or a date alone, in UTC) or a span ${direction} like 2h, 90m, 1d`,
        );
      }
      return t;
    };
  // Number("") is 0: an unset shell variable ("$T") must not pass as one.
  const numberIn = (value: string) => (/^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN);
  const positive = (value: string) => {
    const n = numberIn(value);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("must be a positive number");
    return n;
  };
  const percent = (value: string) => {
    const n = numberIn(value);
    if (!Number.isFinite(n) || n < 0 || n > 100) {
      throw new InvalidArgumentError("must be a percentage from 0 to 100");
    }
    return n;
  };
  const count = (value: string) => {
    const n = numberIn(value);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("must be a whole number");
    return n;
  };
  // Polled with a plain timer, which waits at most MAX_TIMEOUT_MS; below MIN_INTERVAL_MS (0
  // above all) the command would ask hookline about the job as fast as it answers.
  const interval = (value: string) => {
    const n = count(value);
    if (n < MIN_INTERVAL_MS) throw new InvalidArgumentError(`must be at least ${MIN_INTERVAL_MS}`);
    if (n > MAX_TIMEOUT_MS) throw new InvalidArgumentError(`must be at most ${MAX_TIMEOUT_MS}`);
    return n;
  };

  dlq
    .command("list")
    .description("list records, newest first")
    .option("--app <id>", "application id or uid")
    .option("--endpoint <id>", "endpoint id (or uid, with --app)")
    .option("--state <states>", "open, replaying, resolved, abandoned (comma-separated)")
    .addOption(new Option("--class <class>", "failure class").choices(["exhausted", "permanent"]))
    .option("--event-type <type>", "event type")
    .option("--since <time>", "dead-lettered at or after (ISO-8601 or 2h, 1d…)", time("--since"))
    .option("--until <time>", "dead-lettered before", time("--until"))
    .option("--limit <n>", "records per page (1–250)", "50")
    .option("--iterator <it>", "continue after this record (from the previous page)")
    .option("--oldest-first", "oldest first")
    .action(async (o: ListOptions, cmd: Command) => {
      const { api, asJson } = setup(cmd, QUERY_OPTIONS);
      const page = await api.get<Page<RecordOut>>("/api/v1/dlq", {
        app_id: o.app,
        endpoint_id: o.endpoint,
        state: o.state,
        failure_class: o.class,
        event_type: o.eventType,
        since: o.since,
        until: o.until,
        limit: o.limit,
        iterator: o.iterator,
        order: o.oldestFirst ? "ascending" : undefined,
      });
      if (asJson) return json(page);
      const now = io.now();
      print(
        table(
          ["ID", "STATE", "CLASS", "ENDPOINT", "EVENT TYPE", "DEAD-LETTERED", "REPLAYS", "FINAL"],
          page.data.map((r) => [
            r.id,
            r.state,
            r.failureClass,
            r.endpointId,
            r.eventType,
            ago(r.deadLetteredAt, now),
            r.replayCount,
            r.finalStatus !== null ? `HTTP ${r.finalStatus}` : r.finalError,
          ]),
        ),
      );
      if (!page.done) print(`more: --iterator ${page.iterator}`);
    });

  dlq
    .command("show <id>")
    .description("the whole record: attempts, history, payload")
    .action(async (id: string, _o: object, cmd: Command) => {
      const { api, asJson } = setup(cmd);
      const answer = await api.getWithText<WholeRecord>(`/api/v1/dlq/${encodeURIComponent(id)}`);
      // The API answers the payload as the caller's own bytes. Parsed and printed again it would
      // show integers above 2^53 rounded, 1e400 as null and -0 as 0: not what the receiver got.
      if (asJson) return print(answer.text);
      const payload = memberBytes(Buffer.from(answer.text), "payload")?.toString("utf8");
      print(describeRecord(answer.body, payload ?? "null", io.now()));
    });

  dlq
    .command("summary")
    .description("open records by endpoint and failure class, with each endpoint's health")
    .option("--app <id>", "application id or uid")
    .action(async (o: { app?: string }, cmd: Command) => {
      const { api, asJson } = setup(cmd, QUERY_OPTIONS);
      const s = await api.get<z.output<typeof DeadLetterSummaryOut>>("/api/v1/dlq/summary", {
        app_id: o.app,
      });
      if (asJson) return json(s);
      if (s.data.length === 0) return print("no open dead-letter records");
      const now = io.now();
      print(
        table(
          ["ENDPOINT", "URL", "CLASS", "OPEN", "REPLAYING", "OLDEST", "LAST SUCCESS", "CIRCUIT"],
          s.data.map((g) => [
            g.endpointUid ?? g.endpointId,
            g.url,
            g.failureClass,
            g.open,
            g.replaying,
            // An endpoint listed only for its overflow has no open record, so no oldest.
            g.oldestAgeSeconds === null ? null : duration(g.oldestAgeSeconds * 1000),
            ago(g.lastSuccessAt, now),
            g.circuit.state,
          ]),
        ),
      );
      // The cap is the endpoint's, not a failure class's: one warning per endpoint.
      const warned = new Set<string>();
      for (const g of s.data.filter((x) => x.overflowed > 0)) {
        if (warned.has(g.endpointId)) continue;
        warned.add(g.endpointId);
        const name = g.endpointUid ? `${g.endpointUid} (${g.endpointId})` : g.endpointId;
        print(
          `! ${name}: ${g.overflowed} dead letters not kept (depth cap ${g.depthCap}); ` +
            "see GET /api/v1/dlq/overflow",
        );
      }
    });

  dlq
    .command("replay <id>")
    .description(
      "replay one record now and show the outcome (exit code 2 if it failed, or was withdrawn: " +
        "its endpoint disabled before the request went out)",
    )
    .option("--note <text>", "why, for the record's history")
    .action(async (id: string, o: { note?: string }, cmd: Command) => {
      const { api, asJson } = setup(cmd, NOTE_OPTION);
      const { body } = await api.post<z.output<typeof ReplayOut>>(
        `/api/v1/dlq/${encodeURIComponent(id)}/replay`,
        o.note ? { note: o.note } : {},
      );
      // Withdrawn, nothing was delivered either: a script waiting for success must not go on.
      if (body.result === "failed" || body.result === "withdrawn") io.setExitCode(2);
      if (asJson) return json(body);
      const a = body.attempt;
      const what = a
        ? `${a.status !== null ? `HTTP ${a.status}` : a.error} in ${a.durationMs} ms` +
          (body.detail ? `; ${body.detail}` : "")
        : (body.detail ?? "");
      print(`${body.result}: ${what}`);
      print(`${id} is ${body.record.state} (replays: ${body.record.replayCount})`);
    });

  dlq
    .command("replay-bulk")
    .summary("replay open records in the background: a canary sample first, then the rest")
    .description(
      "replay open records in the background: a canary sample first, then the rest. It starts a job in hookline and follows it until it ends (--detach: not at all); stopping the command (Ctrl-C) or killing it stops only the following: the job carries on in hookline (`hookline dlq cancel <id>` stops it)",
    )
    .option("--app <id>", "application id or uid")
    .option("--endpoint <id>", "endpoint id (or uid, with --app)")
    .option("--since <time>", "dead-lettered at or after (ISO-8601 or 2h, 1d…)", time("--since"))
    .option("--until <time>", "dead-lettered before", time("--until"))
    .addOption(new Option("--class <class>", "failure class").choices(["exhausted", "permanent"]))
    .option("--event-type <type>", "event type")
    .option("--ids <ids>", "exactly these records (comma-separated)")
    .option("--rate <n>", "replays per second", positive)
    .option("--canary <n>", "sample replayed first (0: none)", count)
    .option("--threshold <percent>", "the sample's success rate needed to go on", percent)
    .option(
      "--start-at <time>",
      "start later (ISO-8601, or a span ahead like 30m, 2h)",
      time("--start-at", "ahead"),
    )
    .option("--note <text>", "why, for the records' history")
    .option("--detach", "start the job and return; follow it with `hookline dlq job <id> --watch`")
    .option("--interval <ms>", "how often to look at the job, ms (at least 100)", interval, 500)
    .action(async (o: BulkOptions, cmd: Command) => {
      const { api, asJson } = setup(cmd, BULK_OPTIONS);
      const selected = [o.app, o.endpoint, o.since, o.until, o.class, o.eventType, o.ids];
      if (selected.every((v) => !v)) {
        throw new ConfigError(
          "choose what to replay: --endpoint, --app, --since/--until, --class, --event-type or --ids",
        );
      }
      const { body: job } = await api.post<Job>("/api/v1/dlq/replay", {
        appId: o.app,
        endpointId: o.endpoint,
        since: o.since,
        until: o.until,
        failureClass: o.class,
        eventType: o.eventType,
        // Typed by hand as "dlq_a, dlq_b": the blanks are no part of an id.
        ids: o.ids
          ? o.ids
              .split(",")
              .map((id) => id.trim())
              .filter(Boolean)
          : undefined,
        ratePerSecond: o.rate,
        canarySize: o.canary,
        canaryThreshold: o.threshold === undefined ? undefined : o.threshold / 100,
        startAt: o.startAt,
        note: o.note,
      });
      if (o.detach) return asJson ? json(job) : print(`started ${job.id} (${job.state})`);
      if (!asJson) print(`job ${job.id}: ${describeSelection(job)}`);
      await follow(api, job.id, asJson, o.interval, true);
    });

  dlq
    .command("job <jobId>")
    .description("a bulk replay job's progress (--watch to follow it)")
    .option("--watch", "follow it until it ends")
    .option("--interval <ms>", "how often to look at the job, ms (at least 100)", interval, 500)
    .action(async (jobId: string, o: { watch?: boolean; interval: number }, cmd: Command) => {
      const { api, asJson } = setup(cmd);
      if (o.watch) return follow(api, jobId, asJson, o.interval, false);
      const job = await api.get<Job>(`/api/v1/dlq/replay/${encodeURIComponent(jobId)}`);
      if (asJson) return json(job);
      print(`${job.id}: ${describeSelection(job)}`);
      print(renderProgress(job));
      print(`${job.state}${job.reason ? ` — ${job.reason}` : ""}`);
    });

  dlq
    .command("cancel <jobId>")
    .description("cancel a bulk replay job")
    .action(async (jobId: string, _o: object, cmd: Command) => {
      const { api, asJson } = setup(cmd);
      const { body } = await api.post<Job>(
        `/api/v1/dlq/replay/${encodeURIComponent(jobId)}/cancel`,
      );
      if (asJson) return json(body);
      // The job's count, not this cancel's: it includes replays withdrawn earlier (an endpoint
      // disabled while they waited), and the answer does not say how many the cancel took back.
      print(
        `${body.id} is cancelled; replays still queued are taken back ` +
          `(${body.progress.withdrawn} withdrawn over the job)`,
      );
    });

  for (const verb of ["resolve", "abandon"] as const) {
    dlq
      .command(`${verb} <id>`)
      .description(
        verb === "resolve"
          ? "mark a record resolved (the matter is dealt with), with a note"
          : "give up on a record for good, with a note",
      )
      .requiredOption("--note <text>", "what was done and why, for the record's history")
      .action(async (id: string, o: { note: string }, cmd: Command) => {
        const { api, asJson } = setup(cmd, NOTE_OPTION);
        const { body } = await api.post<RecordOut>(
          `/api/v1/dlq/${encodeURIComponent(id)}/${verb}`,
          {
            note: o.note,
          },
        );
        if (asJson) return json(body);
        print(`${body.id} is ${body.state}`);
      });
  }

  /** Polls the job with a progress bar (or quietly, for --json) until it ends. */
  async function follow(
    api: ApiClient,
    jobId: string,
    asJson: boolean,
    interval: number,
    started: boolean,
  ): Promise<void> {
    const bar = asJson ? null : new ProgressBar(io.out);
    // Ctrl-C is how one stops a command, but the job runs in hookline: it replays on, and with
    // --json its id was never printed. Say so, and how to follow or cancel it.
    const carriesOn =
      `job ${jobId} carries on in hookline: ` +
      `\`hookline dlq job ${jobId} --watch\` follows it again, \`hookline dlq cancel ${jobId}\` stops it`;
    const forget = io.onInterrupt?.(
      () => `${io.out.isTTY && !asJson ? "\n" : ""}stopped following; ${carriesOn}`,
    );
    // So does losing hookline while following (a restart, a deploy): once the job was seen.
    let seen = started;
    try {
      for (;;) {
        let job: Job;
        try {
          job = await api.get<Job>(`/api/v1/dlq/replay/${encodeURIComponent(jobId)}`);
        } catch (err) {
          if (!seen || !(err instanceof HooklineError)) throw err;
          bar?.done();
          throw new HooklineError(err.code, `${err.message}; ${carriesOn}`, { cause: err });
        }
        seen = true;
        bar?.update(job);
        if (FINISHED.has(job.state)) {
          bar?.done();
          if (job.state !== "completed") io.setExitCode(2);
          if (asJson) return json(job);
          return print(`${job.state}${job.reason ? `: ${job.reason}` : ""}`);
        }
        await io.sleep(interval);
      }
    } finally {
      forget?.();
    }
  }

  return dlq;
}

function describeSelection(job: Job): string {
  const s = job.selection;
  const parts = [
    s.ids ? `${s.ids.length} listed records` : null,
    s.appId ? `application ${s.appId}` : null,
    s.endpointId ? `endpoint ${s.endpointId}` : null,
    s.failureClass ? `class ${s.failureClass}` : null,
    s.eventType ? `event type ${s.eventType}` : null,
    s.since ? `since ${s.since}` : null,
    s.until ? `until ${s.until}` : null,
  ].filter(Boolean);
  // To a hundredth of a percent, as --threshold takes it: 99.5 rounded whole read "100 %".
  const canary = job.canary.size
    ? `canary ${job.canary.size} at ${Math.round(job.canary.threshold * 10_000) / 100} %`
    : "no canary";
  return `${parts.join(", ")}; ${job.ratePerSecond}/s, ${canary}`;
}

function describeRecord(r: WholeRecord, payload: string, now: number): string {
  const lines = [
    `${r.id}  ${r.state}  (${r.failureClass}: ${r.reason})`,
    table(
      ["", ""],
      [
        ["application", r.appId],
        ["endpoint", r.endpointId],
        ["message", `${r.messageId} (event ${r.eventId ?? "-"}, type ${r.eventType})`],
        ["final", r.finalStatus !== null ? `HTTP ${r.finalStatus}` : r.finalError],
        ["first attempt", r.firstAttemptAt],
        ["last attempt", r.lastAttemptAt],
        ["dead-lettered", `${r.deadLetteredAt} (${ago(r.deadLetteredAt, now)})`],
        ["replays", `${r.replayCount} (${r.failedReplays} failed in a row)`],
      ],
    )
      .split("\n")
      .slice(1)
      .join("\n"),
    "",
    "attempts",
    attemptsTable(r.attempts),
    "",
    "history",
    table(
      ["AT", "WHO", "ACTION", "RESULT", "NOTE"],
      r.history.map((h) => [h.at, h.actor, h.action, h.result, h.note]),
    ),
    "",
    "payload",
    // As the caller wrote it, its lines too; a raw control character (U+0080 to U+009F may stand
    // unescaped in JSON) printed visibly.
    payload.split("\n").map(printable).join("\n"),
  ];
  return lines.join("\n");
}

/**
 * Each attempt on a line, followed by what the receiver answered (its first 4 KiB) or the
 * transport error's detail, indented: that text is what an operator passes on to the endpoint's
 * owner (runbook, step 2).
 */
function attemptsTable(attempts: WholeRecord["attempts"]): string {
  const [header, ...rows] = table(
    ["AT", "TRIGGER", "RESULT", "MS"],
    attempts.map((a) => [
      a.at,
      a.trigger,
      (a.status !== null ? `HTTP ${a.status}` : `${a.error}`) +
        askedToWait(a.retryAfter) +
        ignoredRetryAfter(a.retryAfterIgnored),
      a.durationMs,
    ]),
  ).split("\n");
  const lines = [header!];
  rows.forEach((row, i) => {
    lines.push(row);
    const a = attempts[i]!;
    // An answer's detail (a redirect's target) comes before its body.
    const said = (
      a.status !== null
        ? [a.errorDetail, a.response].filter(Boolean).join("\n")
        : (a.errorDetail ?? a.response)
    ).trim();
    if (said) lines.push(...said.split(/\r?\n/).map((l) => `    ${printable(l)}`));
  });
  return lines.join("\n");
}

/**
 * A wait asked for below this (0.05 s) is no wait: the dashboard, which says tenths of a second,
 * would read it as 0 and says "no wait" for it (ui/src/pages/retry-after.ts), as this does.
 */
const NO_WAIT_BELOW_S = 0.05;

/**
 * ", asked to wait 2m (Retry-After)" where the answer's Retry-After set the next attempt's time,
 * with ", capped at 4h" where hookline waited less, or ", asked for no wait (Retry-After)" where
 * it asked for none; empty otherwise. Without it a retry 2 min after an attempt, not at the
 * ladder's seconds, was unexplained. An older hookline gives none.
 */
function askedToWait(ra: WholeRecord["attempts"][number]["retryAfter"] | undefined): string {
  if (!ra) return "";
  // `Retry-After: 0`, a date already past, or one a few milliseconds ahead: hookline made the
  // retry due at once, or as good as.
  if (ra.askedSeconds < NO_WAIT_BELOW_S) return ", asked for no wait (Retry-After)";
  // To the second, as the dashboard says it: a Retry-After given as a date asks for 119.6 s, say,
  // which duration() alone floors to 1m 59s; a date a moment ahead asks for a wait still kept.
  const said = (seconds: number) =>
    seconds < 0.5 ? "under 1s" : duration(Math.round(seconds) * 1000);
  const asked = `, asked to wait ${said(ra.askedSeconds)} (Retry-After)`;
  return ra.waitSeconds < ra.askedSeconds ? `${asked}, capped at ${said(ra.waitSeconds)}` : asked;
}

/** A year, past which an ignored wait is not given as a number, as on the dashboard. */
const A_YEAR_S = 365 * 24 * 3600;

/**
 * ", asked to wait 2d (Retry-After), ignored: over 24h" ("over a year" past one: 309 digits or
 * more are kept as 1.8e305 s, which read "2.08e+300d") or ', Retry-After "soon" ignored: not a
 * number or date' where hookline ignored the answer's Retry-After and the ladder set the next
 * attempt's time; empty otherwise, and from an older hookline.
 */
function ignoredRetryAfter(
  ignored: WholeRecord["attempts"][number]["retryAfterIgnored"] | undefined,
): string {
  if (!ignored) return "";
  if (ignored.reason === "too-long") {
    const asked =
      ignored.askedSeconds > A_YEAR_S
        ? "over a year"
        : duration(Math.round(ignored.askedSeconds) * 1000);
    return `, asked to wait ${asked} (Retry-After), ignored: over 24h`;
  }
  return `, Retry-After "${printable(ignored.value)}" ignored: not a number or date`;
}
