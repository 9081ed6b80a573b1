/** What a scenario is given, and what it reports. */
import type { Receiver } from "./receiver-client.js";

/** One line of the results table. */
export interface Figure {
  /** Scenario number and name, e.g. "2 drain". */
  scenario: string;
  figure: string;
  value: number | null;
  unit: string;
  /** Value divided by the ceiling (or by the scenario's own baseline, see `ratioOf`). */
  ratio?: number | null;
  /** What the ratio is taken against, when not the ceiling. */
  ratioOf?: string;
  /**
   * Set on figures compared with the ceiling: the least ratio that passes (null: no target).
   * Their ratio and result are set after their scenario (`applyCeiling`), against the ceilings
   * measured beside their work.
   */
  ceilingMin?: number | null;
  /**
   * Index (in the run's list of ceilings) of the ceiling measured last before this figure's work
   * began; its ratio uses that one and the next. Unset: the one measured before its scenario.
   */
  ceilingAt?: number;
  /** False when the run itself went wrong (deliveries missing…): the figure fails regardless. */
  valid?: boolean;
  /** The target in words, e.g. "≥ 0.70 × ceiling". */
  target?: string;
  /** Whether the target is met; null when there is no target or no value. */
  pass?: boolean | null;
  note?: string;
}

export interface BenchContext {
  quick: boolean;
  receiver: Receiver;
  /** Directory for CPU profiles of hookline, when profiling was asked for. */
  profileDir: string | null;
  log(line: string): void;
  /**
   * Measures the ceiling now, between two parts of a scenario that are each compared with it,
   * and returns its index for `Figure.ceilingAt` of the part that follows.
   */
  ceiling(when: string): Promise<number>;
  /** Index of the ceiling measured last (for `Figure.ceilingAt`); -1 before the first. */
  lastCeiling(): number;
  /**
   * Runs `work` with the local PostgreSQL server counted as part of the bench, not as other
   * work on the machine: for a part that drives the database and reports its CPU itself.
   */
  usingDatabase<T>(work: () => Promise<T>): Promise<T>;
}

export interface Scenario {
  /** The name `--only` takes. */
  name: string;
  title: string;
  /** Whether its figures are ratios to the ceiling (the ceiling is then measured too). */
  needsCeiling: boolean;
  run(ctx: BenchContext): Promise<{
    figures: Figure[];
    details?: unknown;
    /** Called once every figure's ratio is set: for notes that compare two ratios. */
    withRatios?: (figures: Figure[]) => void;
  }>;
}

/** Fails every figure whose run went wrong (`valid: false`), compared with the ceiling or not. */
export function failInvalid(figures: Figure[]): void {
  for (const f of figures) if (f.valid === false) f.pass = false;
}

/**
 * Which scenarios of a run (in its order) get a ceiling measured just before them: those compared
 * with it whose last ceiling is not beside them. The run measures one at its start (when
 * `startMeasured`) and after each compared scenario; scenarios not compared with it (accept, lag,
 * backlog) can take minutes in between, over which the host's speed moves.
 */
export function ceilingsBefore(
  scenarios: readonly Pick<Scenario, "needsCeiling">[],
  startMeasured: boolean,
): boolean[] {
  return scenarios.map(
    (s, i) => s.needsCeiling && !(i === 0 ? startMeasured : scenarios[i - 1]!.needsCeiling),
  );
}

/** A figure compared with the ceiling; `min` is the least passing ratio (null: no target). */
export function vsCeiling(base: Omit<Figure, "ceilingMin" | "target">, min: number | null): Figure {
  return {
    ...base,
    ceilingMin: min,
    target: min === null ? undefined : `≥ ${min.toFixed(2)} × ceiling`,
  };
}

/**
 * Sets ratio and result of every ceiling-compared figure: against the mean of the ceiling
 * measured last before its work and the one measured next after it (requests/s, in the order
 * measured). `fallback` is the index for figures that do not say (their scenario's).
 */
export function applyCeiling(
  figures: Figure[],
  ceilings: readonly number[],
  fallback: number,
): void {
  for (const f of figures) {
    if (f.ceilingMin === undefined) continue;
    const at = f.ceilingAt ?? fallback;
    const beside = [ceilings[at], ceilings[at + 1]].filter((c) => c !== undefined);
    const reference = beside.length ? beside.reduce((a, b) => a + b, 0) / beside.length : null;
    f.ratio = f.value !== null && reference ? f.value / reference : null;
    if (f.valid === false) f.pass = false;
    else if (f.ceilingMin === null || f.ratio === null) f.pass = null;
    else f.pass = f.ratio >= f.ceilingMin;
  }
}
