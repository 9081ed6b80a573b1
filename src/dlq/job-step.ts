/**
 * What a bulk replay job does next, decided purely from its progress (and the open circuits that
 * hold its replays): queue another replay, wait for results, move from the canary to the rest, or
 * finish (and why).
 */
import type { ReplayJob } from "../domain/types.js";

/** A job's replays out to an endpoint whose circuit is open: they wait for its probe. */
export interface HeldByCircuit {
  endpointId: string;
  /** The job's replays out to the endpoint. */
  replays: number;
  /** When the circuit last opened. */
  openedAt: number;
  /** When its next probe is due; null if not known. */
  nextProbeAt: number | null;
}

/** The open circuits holding a job's replays, as read at `now`. */
export interface JobCircuits {
  now: number;
  held: HeldByCircuit[];
}

/** One step of a running job. */
export type JobStep =
  | { kind: "enqueue" }
  /** `window`: waiting only because the window of replays out at once is full. */
  | { kind: "wait"; reason: string; window?: true }
  | { kind: "advance"; reason: string }
  | { kind: "finish"; state: "completed" | "stopped"; reason: string };

const percent = (x: number) => `${Math.round(x * 1000) / 10} %`;

/**
 * The next step of a running job. `window` bounds the replays out at once (queued, result not
 * in): replays held back by a busy endpoint or an open circuit cannot pile up and then arrive
 * together, faster than the job's rate. A wait names the open circuits in `circuits`: a replay
 * behind one waits for its probe, up to an hour apart, and only the probe tells. Held so, a
 * canary that can no longer pass, or the rest once the receiver failed again, stops instead.
 */
export function nextJobStep(
  job: ReplayJob,
  window: number,
  circuits: JobCircuits | null = null,
): JobStep {
  const step = stepOf(job, window);
  if (step.kind !== "wait" || !circuits?.held.length) return step;
  const stop =
    job.stage === "canary" ? outOfReach(job) : job.canarySize > 0 ? reopened(job, circuits) : null;
  if (stop) return stop;
  return {
    kind: "wait",
    reason: `${step.reason}; ${circuits.held.map(heldBy(circuits.now)).join("; ")}`,
  };
}

const heldBy =
  (now: number) =>
  (h: HeldByCircuit): string => {
    const probe =
      h.nextProbeAt !== null && h.nextProbeAt > now
        ? `next probe at ${new Date(h.nextProbeAt).toISOString()}`
        : "its probe is due";
    const verb = h.replays === 1 ? "waits" : "wait";
    return `${h.replays} ${verb} for the open circuit of endpoint ${h.endpointId} (${probe})`;
  };

/**
 * A canary whose replays wait behind an open circuit gets one result per probe, up to an hour
 * apart. Once its failures alone put the threshold out of reach, the rest of the sample can change
 * nothing: it stops then rather than hours later.
 */
function outOfReach(job: ReplayJob): JobStep | null {
  const p = job.progress;
  const tried = p.succeeded + p.failed;
  const waiting = (p.total ?? 0) - p.queued - p.skipped;
  const out = p.queued - tried - p.withdrawn;
  const left = out + Math.max(0, Math.min(job.canarySize - (p.queued - p.withdrawn), waiting));
  const best = (p.succeeded + left) / (tried + left);
  if (tried === 0 || best >= job.canaryThreshold) return null;
  return {
    kind: "finish",
    state: "stopped",
    reason:
      `canary: ${p.succeeded} of ${tried} replays succeeded; with the ${left} still to come at ` +
      `most ${percent(best)} can, below the ${percent(job.canaryThreshold)} threshold; replays ` +
      `not yet sent are withdrawn, and the other ${waiting} selected records were not replayed`,
  };
}

/**
 * The canary vouched for the receiver as it was then. A circuit that opened since the job started,
 * holding replays of the rest, says the receiver is failing again: each further replay would wait
 * for a probe, up to an hour apart, one replay each, and the job would run for days. It stops, as
 * a failed canary does. (Without a canary the person asked for no such check: its replays wait.)
 */
function reopened(job: ReplayJob, circuits: JobCircuits): JobStep | null {
  const since = job.startedAt ?? job.startAt;
  const c = circuits.held.find((h) => h.openedAt >= since);
  if (!c) return null;
  const p = job.progress;
  const waiting = (p.total ?? 0) - p.queued - p.skipped;
  return {
    kind: "finish",
    state: "stopped",
    reason:
      `the receiver failed again after the canary passed: the circuit of endpoint ` +
      `${c.endpointId} opened at ${new Date(c.openedAt).toISOString()}; replays not yet sent ` +
      `are withdrawn, and the other ${waiting} selected records were not replayed`,
  };
}

function stepOf(job: ReplayJob, window: number): JobStep {
  const p = job.progress;
  const waiting = (p.total ?? 0) - p.queued - p.skipped;
  const out = p.queued - p.succeeded - p.failed - p.withdrawn;
  const tried = p.succeeded + p.failed;
  if (job.stage === "canary") {
    // A replay withdrawn with its endpoint brings no result: it is no part of the sample. The
    // sample keeps to the window too: it is replays like the rest.
    if (p.queued - p.withdrawn < job.canarySize && waiting > 0) {
      if (out < window) return { kind: "enqueue" };
      return {
        kind: "wait",
        reason: `canary: waiting for results: ${out} replays out at once`,
        window: true,
      };
    }
    if (out > 0) {
      return { kind: "wait", reason: `canary: waiting for ${out} of ${p.queued} results` };
    }
    if (tried === 0) return finished(job);
    const rate = p.succeeded / tried;
    const sample = `canary: ${p.succeeded} of ${tried} replays succeeded (${percent(rate)})`;
    if (rate < job.canaryThreshold) {
      return {
        kind: "finish",
        state: "stopped",
        reason:
          `${sample}, below the ${percent(job.canaryThreshold)} threshold; ` +
          `the other ${waiting} selected records were not replayed`,
      };
    }
    return { kind: "advance", reason: `${sample}; replaying the rest` };
  }
  if (waiting > 0) {
    if (out >= window) {
      return {
        kind: "wait",
        reason: `waiting for results: ${out} replays out at once`,
        window: true,
      };
    }
    return { kind: "enqueue" };
  }
  if (out > 0) return { kind: "wait", reason: `waiting for the last ${out} results` };
  return finished(job);
}

function finished(job: ReplayJob): JobStep {
  const p = job.progress;
  return {
    kind: "finish",
    state: "completed",
    reason:
      `${p.total ?? 0} selected: ${p.succeeded} delivered, ${p.failed} failed, ` +
      `${p.skipped} skipped${p.withdrawn ? `, ${p.withdrawn} withdrawn` : ""}`,
  };
}

/** The reasons shown for a job's skipped records; any more are summed up as "…". */
const SKIP_REASONS_SHOWN = 3;

/**
 * A finished job's reason with why its records were skipped ("5 skipped" alone left a person
 * to guess whether the endpoint was disabled or the records resolved meanwhile).
 */
export function withSkips(reason: string, skips: { detail: string; records: number }[]): string {
  if (skips.length === 0) return reason;
  const shown = skips.slice(0, SKIP_REASONS_SHOWN).map((s) => `${s.records}: ${s.detail}`);
  if (skips.length > SKIP_REASONS_SHOWN) shown.push("…");
  return `${reason} (skipped ${shown.join("; ")})`;
}

/**
 * What a job slower than one replay a second waits for between its replays, or null for a faster
 * one. Its window is one replay, which each replay fills: until its next token is due (up to
 * 100 s away) it waits for its rate, whether or not the replay's result is in (the runner says
 * results instead while a replay is out if results, not the rate, held the job back last). A
 * faster job waits for a token a fraction of a second at most, too briefly to say.
 */
export function rateWait(job: ReplayJob): string | null {
  if (job.ratePerSecond >= 1) return null;
  const stage = job.stage === "canary" ? "canary: " : "";
  return `${stage}waiting for its rate: ${job.ratePerSecond} replays a second`;
}

/**
 * Why a job due to start waits: the runner that found it due already runs `maxJobs`, as many as
 * it may. On a store several processes share (`shared`) that runner knows only its own jobs:
 * another process may have room, so the reason says what this one found and no more.
 */
export function slotWait(maxJobs: number, shared: boolean): string {
  const jobs = `${maxJobs} replay job${maxJobs === 1 ? "" : "s"}`;
  return shared
    ? `waiting for a free slot: a hookline process found it due while running ${jobs}, ` +
        "the most it runs at once; it starts when a process has room"
    : `waiting for a free slot: hookline is running ${jobs}, the most it runs at once; ` +
        "it starts when one of them ends";
}

/** Replays out at once for a job at `ratePerSecond`: about one second's worth, at least one. */
export function replayWindow(ratePerSecond: number): number {
  return Math.max(1, Math.ceil(ratePerSecond));
}
