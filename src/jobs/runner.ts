import type { Clock } from '../shared/clock.ts';
import type { WriteRunner } from '../domain/ledger/expiry.ts';
import { addMs } from '../shared/clock.ts';
import { SwapList } from '../shared/swap-list.ts';
import type { Logger } from '../shared/log.ts';
import type { Pacer } from './pacer.ts';

/** A job leased from a durable table; `key` groups jobs that share a concurrency limit (an endpoint). */
export interface Job {
  key: string;
}

export interface ClaimArguments {
  limit: number;
  perKey: number;
  /** Jobs this runner has in flight, by key. */
  inFlight: ReadonlyMap<string, number>;
  sweep: boolean;
}

/** The table-specific operations a runner drives; every one but `perform` is synchronous SQL. */
export interface JobQueue<J extends Job, O> {
  /**
   * Leases due jobs until `leaseUntil`, at most `limit`, at most `perKey` in flight per key.
   * `sweep` asks for a look at the whole table (start, timer, runDue); otherwise the queue may
   * look only where it knows work was added or left (after an enqueue or a finished job).
   */
  claim(now: Date, leaseUntil: Date, limits: ClaimArguments): J[];
  /** Does the job's outside work (never throws: failures are outcomes). */
  perform(job: J): Promise<O>;
  /** Records the outcome; the runner runs it through the write runner. */
  record(job: J, outcome: O, now: Date): void;
  /**
   * `perform` threw or `record` did: counts the attempt as failed (never throwing), so that every
   * job kind ends after its bounded number of attempts whatever goes wrong, instead of falling due
   * again at each lease's end for ever.
   */
  fail(job: J, error: string, now: Date): void;
  /** When the next job falls due (ISO 8601), or null when none is waiting. */
  nextDueAt(): string | null;
  /** Releases leases left by a process that died, so their jobs run now. */
  takeOverLeases(now: Date): void;
}

export interface RunnerOptions {
  write: WriteRunner;
  clock: Clock;
  log: Logger;
  /** Jobs in flight at once, overall and per key. */
  concurrency: number;
  perKey: number;
  /** How long a claimed job stays leased; longer than `perform` can take. */
  leaseMs: number;
  /** The longest the runner sleeps without looking (catches jobs another process, the CLI, made due). */
  pollMs: number;
  /**
   * Makes the pacer that bounds the jobs in flight while the runner runs by itself (made at each
   * start, so every start begins slowly); without one, `concurrency` is the only bound. `runDue`
   * is never paced.
   */
  pacer?: () => Pacer;
}

/**
 * An in-process runner over a durable job table: claims due jobs with a lease, runs them with
 * bounded concurrency, and sleeps until the next one is due or `wake()` is called (after a commit
 * that enqueued work). Claims and outcomes go through the group committer like every other write.
 * A job's concurrency slot is freed as soon as its outside work ends, not when its outcome is
 * durable: the lease keeps it from being claimed again meanwhile, and the slots stay busy with
 * work rather than waiting on fsync.
 */
export class JobRunner<J extends Job, O = unknown> {
  readonly #queue: JobQueue<J, O>;
  readonly #options: RunnerOptions;
  readonly #inFlight = new Map<string, number>();
  // Lists, not Sets: one entry comes and goes per job (see SwapList).
  readonly #running = new SwapList<Promise<void>>();
  readonly #recording = new SwapList<Promise<void>>();
  #started = false;
  /** The next claim looks at the whole table: set at start, by the timer and by runDue. */
  #sweep = true;
  #wakeScheduled = false;
  #pumping = false;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #pacer: Pacer | undefined;

  constructor(queue: JobQueue<J, O>, options: RunnerOptions) {
    this.#queue = queue;
    this.#options = options;
  }

  /** Takes over dead leases, then runs until `stop()`. */
  async start(): Promise<void> {
    await this.#options.write(() => this.#queue.takeOverLeases(this.#options.clock()));
    this.#pacer = this.#options.pacer?.();
    this.#started = true;
    this.wake();
  }

  /** Looks for due jobs soon (coalesced: many calls in one turn cost one claim). */
  wake(): void {
    if (!this.#started || this.#wakeScheduled) return;
    this.#wakeScheduled = true;
    setImmediate(() => {
      this.#wakeScheduled = false;
      void this.#pump();
    });
  }

  /** Stops claiming and waits for the jobs in flight to finish recording their outcome. */
  async stop(): Promise<void> {
    this.#started = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pacer = undefined;
    await Promise.allSettled([...this.#running]);
    await Promise.allSettled([...this.#recording]);
  }

  /**
   * Runs every job due now, and the ones that fall due while doing so, to the end; resolves with
   * how many ran. For tests and tools that drive the runner by hand with their own clock.
   */
  async runDue(): Promise<number> {
    let ran = 0;
    for (;;) {
      this.#sweep = true;
      const claimed = await this.#claim(false);
      ran += claimed;
      if (claimed === 0 && this.#running.size === 0) {
        if (this.#recording.size === 0) return ran;
        await Promise.allSettled([...this.#recording]);
      } else if (claimed === 0) await Promise.race(this.#running);
    }
  }

  get inFlight(): number {
    return this.#running.size;
  }

  async #pump(): Promise<void> {
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = true;
    try {
      do {
        this.#again = false;
        await this.#claim(true);
      } while (this.#again && this.#started);
      if (this.#started) this.#sleep();
    } catch (error) {
      this.#options.log.error('job runner: claiming failed', error);
      if (this.#started) this.#sleep();
    } finally {
      this.#pumping = false;
    }
  }

  /** Claims what there is room for (within the pacer's limit when `paced`) and starts it; returns how many were claimed. */
  async #claim(paced: boolean): Promise<number> {
    const { write, clock, concurrency, perKey, leaseMs } = this.#options;
    const pacer = paced ? this.#pacer : undefined;
    const bound = pacer ? Math.min(concurrency, pacer.limit()) : concurrency;
    const limit = bound - this.#running.size;
    if (limit <= 0) {
      pacer?.limited();
      return 0;
    }
    const sweep = this.#sweep;
    this.#sweep = false;
    const jobs = await write(() => {
      const now = clock();
      return this.#queue.claim(now, addMs(now, leaseMs), { limit, perKey, inFlight: this.#inFlight, sweep });
    });
    for (const job of jobs) this.#run(job);
    if (jobs.length === limit) pacer?.limited();
    return jobs.length;
  }

  #run(job: J): void {
    this.#inFlight.set(job.key, (this.#inFlight.get(job.key) ?? 0) + 1);
    const { write, clock, log } = this.#options;
    // A job that throws, or whose outcome cannot be recorded, is recorded as a failed attempt; if
    // even that fails, it stays leased and runs again when the lease expires: at least once.
    const failed = (what: string) => (error: unknown) => {
      log.error(`job runner: ${what}`, error);
      return write(() => this.#queue.fail(job, `internal_error (${what}; see the server log)`, clock()))
        .catch((again: unknown) => log.error('job runner: a failed job could not be recorded either', again));
    };
    const running = this.#running.add(this.#queue.perform(job).then((outcome) => {
      const recording = this.#recording.add(write(() => this.#queue.record(job, outcome, clock()))
        .catch(failed('a job failed to record its outcome'))
        .finally(() => this.#recording.remove(recording)));
    }, (error: unknown) => {
      const recording = this.#recording.add(failed('a job failed')(error).finally(() => this.#recording.remove(recording)));
    }).finally(() => {
      this.#pacer?.finished();
      const left = this.#inFlight.get(job.key)! - 1;
      if (left === 0) this.#inFlight.delete(job.key);
      else this.#inFlight.set(job.key, left);
      this.#running.remove(running);
      this.wake();
    }));
  }

  /**
   * Sleeps until the next job is due, at most `pollMs`, then sweeps. A job already due is waiting
   * for room (finishing jobs wake the runner), so then it only checks back after a second.
   */
  #sleep(): void {
    // A timer already set stands: work added since then wakes the runner itself, and recomputing
    // after every claim under load cost more than the deliveries.
    if (this.#timer !== undefined) return;
    const next = this.#queue.nextDueAt();
    const untilDue = next === null ? Infinity : Date.parse(next) - this.#options.clock().getTime();
    const delay = untilDue <= 0 ? 1_000 : Math.min(untilDue, this.#options.pollMs);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#sweep = true;
      this.wake();
    }, delay);
    this.#timer.unref();
  }
}
