import { describe, expect, it } from 'vitest';
import { Pacer, type PacerOptions } from '../src/jobs/pacer.ts';
import { JobRunner, type Job, type JobQueue } from '../src/jobs/runner.ts';

/** A pacer on an injected clock, request count and arrivals, which the test moves. */
function pacer(overrides: Partial<PacerOptions> = {}) {
  const signals = { at: 0, requests: 0, arrivals: 0 };
  const made = new Pacer({
    min: 2, max: 32, intervalMs: 100,
    foreground: () => signals.requests,
    arrivals: () => signals.arrivals,
    now: () => signals.at,
    ...overrides,
  });
  /**
   * One interval passes with `requests` answered, the runner held back by the limit (or not), and
   * `work` jobs arriving and `done` finishing in it; returns the limit then.
   */
  const interval = (requests: number, limited = true, { work = 0, done = 0 } = {}) => {
    if (limited) made.limited();
    for (let i = 0; i < done; i++) made.finished();
    signals.at += 100;
    signals.requests += requests;
    signals.arrivals += work;
    return made.limit();
  };
  return { made, signals, interval };
}

describe('Pacer', () => {
  it('starts small and doubles each interval the limit held the runner back, up to max', () => {
    const { made, interval } = pacer();
    expect(made.limit()).toBe(2);
    expect([1, 2, 3, 4, 5].map(() => interval(0))).toEqual([4, 8, 16, 32, 32]);
  });

  it('halves while requests come, never below min, and doubles back once they stop', () => {
    const { interval } = pacer();
    for (let i = 0; i < 4; i++) interval(0); // 32
    expect([interval(20), interval(20), interval(20), interval(20), interval(20)]).toEqual([16, 8, 4, 2, 2]);
    expect([interval(0), interval(0), interval(0)]).toEqual([4, 8, 16]);
  });

  it('halves while it drains a backlog, probes down by one while it keeps pace, and is never left behind', () => {
    const { interval } = pacer();
    for (let i = 0; i < 4; i++) interval(0); // 32
    // A backlog drains beside requests, finishing at least twice what arrives: it halves.
    expect([interval(20, true, { work: 20, done: 60 }), interval(20, true, { work: 20, done: 40 })]).toEqual([16, 8]);
    // At 8 it finishes fewer than arrive (200 awards/s with one webhook): it doubles, requests or not.
    expect([interval(20, true, { work: 20, done: 12 }), interval(20, true, { work: 20, done: 18 })]).toEqual([16, 32]);
    // Keeping pace with new work and no more, it shrinks by one: halving there would leave it
    // behind again and make every delivery wait.
    expect([interval(20, true, { work: 20, done: 25 }), interval(20, true, { work: 20, done: 20 })]).toEqual([31, 30]);
    // Draining again, it sheds the drain.
    expect(interval(20, true, { work: 20, done: 50 })).toBe(15);
  });

  it('grows only when the limit held the runner back, and looks once per interval', () => {
    const { made, signals, interval } = pacer();
    expect(interval(0, false)).toBe(2);
    made.limited();
    signals.at += 50;
    expect(made.limit()).toBe(2);
    signals.at += 50;
    expect(made.limit()).toBe(4);
  });
});

interface TestJob extends Job {
  n: number;
}

describe('JobRunner with a pacer', () => {
  it('ramps the jobs in flight up after start instead of starting at full concurrency', async () => {
    const { made, signals } = pacer();
    let next = 0;
    const finish: (() => void)[] = [];
    let waiter: { count: number; resolve: () => void } | null = null;
    const started = (count: number) => new Promise<void>((resolve) => {
      waiter = { count, resolve };
      if (finish.length >= count) resolve();
    });
    // 1,000 jobs due for one key; each runs until the test finishes it.
    const queue: JobQueue<TestJob, boolean> = {
      claim: (_now, _lease, { limit }) => Array.from({ length: Math.min(limit, 1000 - next) }, () => ({ key: 'endpoint', n: next++ })),
      perform: () => new Promise<boolean>((resolve) => {
        finish.push(() => resolve(true));
        if (waiter && finish.length >= waiter.count) waiter.resolve();
      }),
      record: () => undefined,
      fail: () => undefined,
      nextDueAt: () => null,
      takeOverLeases: () => undefined,
    };
    const runner = new JobRunner(queue, {
      write: async (work) => work(), clock: () => new Date(0), log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      concurrency: 128, perKey: 128, leaseMs: 60_000, pollMs: 60_000, pacer: () => made,
    });
    await runner.start();
    await started(2);
    expect(runner.inFlight).toBe(2); // not 128: the runner starts slowly
    // An interval passes; the two finish and free their slots: now four may run.
    signals.at += 100;
    for (const done of finish.splice(0)) done();
    await started(4);
    expect(runner.inFlight).toBe(4);
    // Requests arrive and the runner keeps pace: after the next interval, fewer at once.
    signals.at += 100;
    signals.requests += 10;
    for (const done of finish.splice(0)) done();
    await started(2);
    expect(runner.inFlight).toBe(2);
    for (const done of finish.splice(0)) done();
    await runner.stop();
  });
});
