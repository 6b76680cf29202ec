import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface PacerOptions {
  /** Jobs in flight the runner may always have (it never stops: background work slows, never starves). */
  min: number;
  /** The most it may ever have. */
  max: number;
  /** How late the event loop may run (ms) before background work backs off. */
  targetDelayMs: number;
  /** How often the limit is reconsidered (ms). */
  intervalMs: number;
  /** How late the event loop ran over the window since the last read (ms); each read starts a new window. */
  loopDelay: { read: () => number; stop?: () => void };
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
 * event loop with, the way TCP adapts its window. It starts small at every start; after each
 * interval in which the limit held it back, it doubles (slow start, and whenever no request came),
 * or grows by one once it has had to back off. When requests came and the event loop ran later
 * than the target, the limit halves, never below `min`, as long as the runner finished at least as
 * many jobs as arrived; when it finished fewer, it doubles instead. An award then keeps its latency
 * while a backlog drains, new jobs are never left behind (halving down to 2 whatever arrived, a
 * steady 200 awards/s with one webhook outran the runner and its deliveries fell seconds behind),
 * and without requests the runner is at `max` within a few intervals.
 */
export class Pacer {
  readonly #options: PacerOptions;
  #limit: number;
  #slowStart = true;
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
    const { min, max, targetDelayMs, intervalMs, loopDelay, foreground, arrivals, now } = this.#options;
    const at = now();
    if (at - this.#windowStart >= intervalMs) {
      this.#windowStart = at;
      const delay = loopDelay.read();
      const requests = foreground() - this.#foregroundSeen;
      this.#foregroundSeen += requests;
      const arrived = arrivals() - this.#arrivalsSeen;
      this.#arrivalsSeen += arrived;
      const fallingBehind = this.#finished < arrived;
      this.#finished = 0;
      if (requests > 0 && delay > targetDelayMs && !fallingBehind) {
        this.#limit = Math.max(min, Math.floor(this.#limit / 2));
        this.#slowStart = false;
      } else if (this.#saturated) {
        this.#limit = Math.min(max, this.#slowStart || requests === 0 || fallingBehind ? this.#limit * 2 : this.#limit + 1);
      }
      this.#saturated = false;
    }
    return this.#limit;
  }

  /** Ends the measuring (the runner stopped). */
  stop(): void {
    this.#options.loopDelay.stop?.();
  }
}

/**
 * The event loop's lateness as Node measures it: a timer every `resolutionMs`, whose intervals
 * the histogram holds (the resolution itself included, hence the subtraction). The longest over
 * the window since the last read, in ms: what a request arriving then would have waited, which
 * the 90th percentile of a few samples missed (a drain's long commits are rare but set the p99).
 * `stop` ends the measuring timer.
 */
export function eventLoopDelay(resolutionMs = 10): { read: () => number; stop: () => void } {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  return {
    read() {
      const longest = histogram.count > 0 ? Math.max(0, histogram.max / 1e6 - resolutionMs) : 0;
      histogram.reset();
      return longest;
    },
    stop: () => histogram.disable(),
  };
}
