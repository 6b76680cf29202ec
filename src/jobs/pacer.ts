export interface PacerOptions {
  /** Jobs in flight the runner may always have (it never stops: background work slows, never starves). */
  min: number;
  /** The most it may ever have. */
  max: number;
  /** How often the limit is reconsidered (ms). */
  intervalMs: number;
  /** How many requests' writes there have been so far (a running count): work the runner yields to. */
  foreground: () => number;
  /**
   * How many jobs have been added so far (a running count). The runner backs off only while it
   * finishes at least as many jobs as arrive: it sheds a backlog's drain, never the new work.
   */
  arrivals: () => number;
  /** Monotonic time in ms. */
  now: () => number;
}

/**
 * How many jobs a background runner may have in flight, adapted to the requests it shares the
 * event loop with. It starts small at every start. In an interval in which requests came and the
 * runner finished at least as many jobs as arrived, the limit halves, never below `min`: while
 * requests come it does no more than keeps pace with new work, and a backlog drains at its floor.
 * Otherwise (no requests, or fewer jobs finished than arrived), each interval in which the limit
 * held the runner back doubles it, up to `max`. An award keeps its latency while a backlog drains
 * (backing off only once the event loop had run late let the drain's own stalls set the awards'
 * p99), new jobs are never left behind, and without requests the runner is at `max` within a
 * few intervals.
 */
export class Pacer {
  readonly #options: PacerOptions;
  #limit: number;
  #windowStart: number;
  #foregroundSeen: number;
  #arrivalsSeen: number;
  /** Jobs finished during this window. */
  #finished = 0;
  /** The limit bounded the runner during this window. */
  #saturated = false;

  constructor(options: PacerOptions) {
    this.#options = options;
    this.#limit = options.min;
    this.#windowStart = options.now();
    this.#foregroundSeen = options.foreground();
    this.#arrivalsSeen = options.arrivals();
  }

  /** A job ended (its slot is free again). */
  finished(): void {
    this.#finished++;
  }

  /** The limit, not the work waiting, bounded the runner: it claimed all it was allowed, or had no room. */
  limited(): void {
    this.#saturated = true;
  }

  /** The limit now; reconsidered once per interval. */
  limit(): number {
    const { min, max, intervalMs, foreground, arrivals, now } = this.#options;
    const at = now();
    if (at - this.#windowStart >= intervalMs) {
      this.#windowStart = at;
      const requests = foreground() - this.#foregroundSeen;
      this.#foregroundSeen += requests;
      const arrived = arrivals() - this.#arrivalsSeen;
      this.#arrivalsSeen += arrived;
      const keptPace = this.#finished >= arrived;
      this.#finished = 0;
      if (requests > 0 && keptPace) this.#limit = Math.max(min, Math.floor(this.#limit / 2));
      else if (this.#saturated) this.#limit = Math.min(max, this.#limit * 2);
      this.#saturated = false;
    }
    return this.#limit;
  }
}
