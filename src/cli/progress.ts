/**
 * A text progress bar for a bulk replay job, redrawn in place on a terminal and written a line
 * per change otherwise (so a CI log shows the job's steps without a flood of lines).
 */

/** What the bar shows of a job (the API's ReplayJobOut, in part). */
export interface JobProgress {
  state: string;
  stage: string;
  startAt: string;
  reason: string | null;
  progress: {
    total: number | null;
    succeeded: number;
    failed: number;
    skipped: number;
    withdrawn: number;
    outstanding: number;
  };
}

/** One line: `[=========-----------] 12/25  ok 10  failed 2  skipped 0  canary  running`. */
export function renderProgress(job: JobProgress, width = 30): string {
  const p = job.progress;
  if (job.state === "scheduled") return `scheduled to start at ${job.startAt}`;
  if (p.total === null) {
    // Only a running job takes its records; one cancelled while scheduled never will.
    return job.state === "running"
      ? "running: selecting records…"
      : `${job.state} before it selected any records`;
  }
  const done = p.succeeded + p.failed + p.skipped + p.withdrawn;
  const filled = p.total === 0 ? width : Math.round((done / p.total) * width);
  const bar = `[${"=".repeat(filled)}${"-".repeat(width - filled)}]`;
  const withdrawn = p.withdrawn ? `  withdrawn ${p.withdrawn}` : "";
  const counts = `ok ${p.succeeded}  failed ${p.failed}  skipped ${p.skipped}${withdrawn}`;
  const stage = job.state === "running" ? `  ${job.stage}` : "";
  return `${bar} ${done}/${p.total}  ${counts}${stage}  ${job.state}`;
}

/**
 * Writes successive renderings to a stream. A running job's reason (what it waits for: results,
 * an open circuit's probe; its canary's verdict), and a scheduled one's (a free slot, its start
 * time passed), goes on a line of its own above the bar each time it changes: a bar that stops
 * moving should say why. An ended job's reason is the command's last line, not one of these.
 */
export class ProgressBar {
  private last = "";
  private lastReason: string | null = null;

  constructor(
    private readonly out: { write(s: string): unknown; isTTY?: boolean; columns?: number },
  ) {}

  update(job: JobProgress): void {
    const reason = job.state === "running" || job.state === "scheduled" ? job.reason : null;
    if (reason && reason !== this.lastReason) {
      this.out.write(this.out.isTTY ? `\r\x1b[2K${reason}\n` : `${reason}\n`);
      this.last = ""; // the reason's line took the bar's place: draw it again below
    }
    this.lastReason = reason;
    const line = this.fitted(job);
    if (line === this.last) return;
    this.last = line;
    if (this.out.isTTY) this.out.write(`\r\x1b[2K${line}`);
    else this.out.write(`${line}\n`);
  }

  /**
   * On a terminal, the line in fewer columns than the terminal has: a longer one wraps, and the
   * next redraw (`\r`, clear the line) reaches only its last row, leaving the rest of each update
   * behind on the screen. The bar narrows first, then the line is cut.
   */
  private fitted(job: JobProgress): string {
    const line = renderProgress(job);
    const columns = this.out.isTTY ? this.out.columns : undefined;
    if (!columns || line.length < columns) return line;
    const narrower = renderProgress(job, Math.max(10, 30 - (line.length - columns + 1)));
    return narrower.length < columns ? narrower : narrower.slice(0, Math.max(1, columns - 1));
  }

  /** Ends the line the bar was drawn on. */
  done(): void {
    if (this.out.isTTY && this.last) this.out.write("\n");
  }
}
