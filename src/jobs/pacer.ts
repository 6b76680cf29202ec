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
   * How many jobs have been added so far (a running count): the new work, which the runner never
   * falls behind, as against a backlog's drain, which it sheds while requests come.
   */
  arrivals: () => number;
  /** Monotonic time in ms. */
  now: () => number;
}

/**
 * How many jobs a background runner may have in flight, adapted to the requests it shares the
 * event loop with. It starts small at every start. In an interval in which requests came:
 * - if the runner finished at least twice as many jobs as arrived (it was draining a backlog),
 *   the limit halves, never below `min`, so a backlog drains at the floor while requests come;
 * - if it kept pace with new jobs and no more, the limit shrinks by one: halving there left it
 *   falling behind every other interval, and deliveries waited half a second at 500 awards/s;
 * - if it finished fewer than arrived, the limit doubles (when it held the runner back), so new
 *   jobs are never left behind.
 * With no requests it doubles likewise, up to `max` within a few intervals. Backing off only after
 * the event loop had run late let a drain's own stalls set the awards' p99.
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
      const draining = this.#finished >= 2 * arrived;
      const fallingBehind = this.#finished < arrived;
      this.#finished = 0;
      if (requests > 0 && draining) this.#limit = Math.max(min, Math.floor(this.#limit / 2));
      else if (requests > 0 && !fallingBehind) this.#limit = Math.max(min, this.#limit - 1);
      else if (this.#saturated) this.#limit = Math.min(max, this.#limit * 2);
      this.#saturated = false;
    }
    return this.#limit;
  }
}
