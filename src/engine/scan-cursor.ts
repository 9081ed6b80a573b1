/**
 * Where the claim loop's scan of due deliveries stands: the position it has claimed up to, the
 * work announced since, and whether a scan now could find anything at all. Pure bookkeeping; the
 * engine reads the clock and runs the scans.
 */
import { SCAN_START, scanPassed, type ScanPosition, type ScanResult } from "../store/port.js";

export class ScanCursor {
  /**
   * Every pending delivery due before this position has been claimed, except those of endpoints
   * that were full when the scan passed them; those wait in the engine's `backlogged` and are
   * refilled through their own index. So a claim never walks again over rows it already stepped
   * past, however large the backlog of a full endpoint: the cost of claiming follows the batch,
   * not the backlog. (Where the store walks in windows, stepping past such a backlog the first
   * time is one window and a look by endpoint: see the engine's `byEndpoint`.)
   */
  position: ScanPosition = SCAN_START;
  /**
   * The earliest due time announced (a wake-up, a retry) since the current scan's claim began.
   * On PostgreSQL the claim is a round trip: work committed meanwhile, due before the point the
   * scan then reaches, was invisible to it, and moving the position past it would lose it until
   * the next full scan.
   */
  private announcedDuringClaim = Number.POSITIVE_INFINITY;
  /**
   * Until this time a scan can find nothing: the last one claimed everything due outside full
   * endpoints (and, in a fleet, other workers' endpoints), nothing has been announced since, and
   * nothing else falls due before it. While a full endpoint drains, every freed slot wakes the
   * pump for its refill; without this, each of those wake-ups also paid for a scan that came
   * back empty (a write transaction on SQLite, a walk of the due index on PostgreSQL).
   * Any announcement, timer change or rescan clears it.
   */
  private quietUntil = Number.NEGATIVE_INFINITY;
  /** Counts announcements, so a scan can tell whether one arrived while it ran. */
  private announcements = 0;

  /** Work announced, due at `at`: rows due then are looked at again, and nothing is quiet. */
  announce(at: number): void {
    this.announcements++;
    this.quietUntil = Number.NEGATIVE_INFINITY;
    // Rows due at `at` are all looked at again: one announced may sort before the position's row.
    if (at <= this.position.due) this.position = { due: at, row: SCAN_START.row };
    if (at < this.announcedDuringClaim) this.announcedDuringClaim = at;
  }

  /** The next scan starts again from the first due row. */
  restart(): void {
    this.position = SCAN_START;
    this.quietUntil = Number.NEGATIVE_INFINITY;
  }

  /** Whether a scan at `now` could find nothing (see `quietUntil`). */
  isQuiet(now: number): boolean {
    return now < this.quietUntil;
  }

  /** Something other than an announcement may have made work due: scans look again. */
  unquiet(): void {
    this.quietUntil = Number.NEGATIVE_INFINITY;
  }

  /**
   * Work announced while quiet that falls due only at `at`, later than `now`: the quiet is cut
   * short there and the position stays (it never passes `now`). False when not quiet, or `at` is
   * due already: the announcement must then be made.
   */
  quietUntilDue(at: number, now: number): boolean {
    if (!(now < at && now < this.quietUntil)) return false;
    this.quietUntil = Math.min(this.quietUntil, at);
    return true;
  }

  /** A scan's claim begins; what it returns tells `caughtUp` whether anything came meanwhile. */
  beginClaim(): number {
    this.announcedDuringClaim = Number.POSITIVE_INFINITY;
    return this.announcements;
  }

  /**
   * Moves the position to where the scan stopped (`now` if it looked at everything due), but not
   * past anything announced while it ran.
   */
  scanned(reachedAt: ScanResult["reached"], now: number): void {
    const reached = reachedAt ?? { due: now, row: SCAN_START.row };
    if (scanPassed(reached, this.position)) this.position = reached;
    if (this.announcedDuringClaim <= this.position.due) {
      this.position = { due: this.announcedDuringClaim, row: SCAN_START.row };
    }
  }

  /**
   * The scan claimed everything due by its `now`, and the next delivery falls due at `next`
   * (null: none pending): quiet until then, unless something was announced since `beganAt`.
   */
  caughtUp(next: number | null, beganAt: number): void {
    if (this.announcements === beganAt) this.quietUntil = next ?? Number.POSITIVE_INFINITY;
  }
}
