import type { Clock } from '../domain/clock.ts';
import type { WriteRunner } from '../domain/expiry.ts';
import { addMs } from '../domain/clock.ts';
import type { Logger } from '../log.ts';

/** A job leased from a durable table; `key` groups jobs that share a concurrency limit (an endpoint). */
export interface Job {
  key: string;
}

/** The table-specific operations a runner drives; every one but `perform` is synchronous SQL. */
export interface JobQueue<J extends Job> {
  /** Leases due jobs until `leaseUntil`, at most `limit`, at most `perKey` in flight per key. */
  claim(now: Date, leaseUntil: Date, limits: { limit: number; perKey: number; inFlight: ReadonlyMap<string, number> }): J[];
  /** Does the job and records its outcome (through the write runner). */
  perform(job: J): Promise<void>;
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
}

/**
 * An in-process runner over a durable job table: claims due jobs with a lease, runs them with
 * bounded concurrency, and sleeps until the next one is due or `wake()` is called (after a commit
 * that enqueued work). Claims go through the group committer like every other write.
 */
export class JobRunner<J extends Job> {
  readonly #queue: JobQueue<J>;
  readonly #options: RunnerOptions;
  readonly #inFlight = new Map<string, number>();
  readonly #running = new Set<Promise<void>>();
  #started = false;
  #wakeScheduled = false;
  #pumping = false;
  #again = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(queue: JobQueue<J>, options: RunnerOptions) {
    this.#queue = queue;
    this.#options = options;
  }

  /** Takes over dead leases, then runs until `stop()`. */
  async start(): Promise<void> {
    await this.#options.write(() => this.#queue.takeOverLeases(this.#options.clock()));
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
    await Promise.allSettled([...this.#running]);
  }

  /**
   * Runs every job due now, and the ones that fall due while doing so, to the end; resolves with
   * how many ran. For tests and tools that drive the runner by hand with their own clock.
   */
  async runDue(): Promise<number> {
    let ran = 0;
    for (;;) {
      const claimed = await this.#claim();
      ran += claimed;
      if (claimed === 0 && this.#running.size === 0) return ran;
      if (claimed === 0) await Promise.race(this.#running);
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
        await this.#claim();
      } while (this.#again && this.#started);
      if (this.#started) this.#sleep();
    } catch (error) {
      this.#options.log.error('job runner: claiming failed', error);
      if (this.#started) this.#sleep();
    } finally {
      this.#pumping = false;
    }
  }

  /** Claims what there is room for and starts it; returns how many were claimed. */
  async #claim(): Promise<number> {
    const { write, clock, concurrency, perKey, leaseMs } = this.#options;
    const limit = concurrency - this.#running.size;
    if (limit <= 0) return 0;
    const jobs = await write(() => {
      const now = clock();
      return this.#queue.claim(now, addMs(now, leaseMs), { limit, perKey, inFlight: this.#inFlight });
    });
    for (const job of jobs) this.#run(job);
    return jobs.length;
  }

  #run(job: J): void {
    this.#inFlight.set(job.key, (this.#inFlight.get(job.key) ?? 0) + 1);
    const running: Promise<void> = this.#queue.perform(job)
      .catch((error: unknown) => this.#options.log.error('job runner: a job failed to record its outcome', error))
      .finally(() => {
        const left = this.#inFlight.get(job.key)! - 1;
        if (left === 0) this.#inFlight.delete(job.key);
        else this.#inFlight.set(job.key, left);
        this.#running.delete(running);
        this.wake();
      });
    this.#running.add(running);
  }

  /** Sleeps until the next job is due, at most `pollMs`, at least a moment (a due job may be waiting for room). */
  #sleep(): void {
    clearTimeout(this.#timer);
    const next = this.#queue.nextDueAt();
    const untilDue = next === null ? Infinity : Date.parse(next) - this.#options.clock().getTime();
    const delay = Math.min(Math.max(untilDue, 50), this.#options.pollMs);
    this.#timer = setTimeout(() => this.wake(), delay);
    this.#timer.unref();
  }
}
