import { describe, expect, it } from 'vitest';
import { JobRunner, type JobQueue } from '../src/jobs/runner.ts';
import { MAX_ATTEMPTS, recordAttemptError } from '../src/webhooks/deliveries.ts';
import { startTestServer, TestClock } from './helpers/server.ts';

// Every job kind has a bounded number of attempts (issue 47): a job that throws, or whose outcome
// cannot be recorded (a coupon whose code collided with another claim's did), is recorded as a
// failed attempt through its queue's `fail`, instead of falling due again at each lease's end for ever.

interface TestJob { key: string; n: number }

function runnerWith(behaviour: { perform: (job: TestJob) => Promise<string>; record: (job: TestJob, outcome: string) => void }) {
  const due = [{ key: 'k', n: 1 }, { key: 'k', n: 2 }];
  const failed: [number, string][] = [];
  const errors: string[] = [];
  const queue: JobQueue<TestJob, string> = {
    claim: (_now, _lease, { limit }) => due.splice(0, limit),
    perform: behaviour.perform,
    record: behaviour.record,
    fail: (job, error) => { failed.push([job.n, error]); },
    nextDueAt: () => null,
    takeOverLeases: () => undefined,
  };
  const runner = new JobRunner(queue, {
    write: async (work) => work(), clock: () => new Date(0), concurrency: 4, perKey: 4, leaseMs: 1_000, pollMs: 1_000,
    log: { info: () => undefined, warn: () => undefined, error: (message) => { errors.push(message); } },
  });
  return { runner, failed, errors };
}

describe('the job runner', () => {
  it('records a job whose outcome cannot be recorded as a failed attempt', async () => {
    const recorded: number[] = [];
    const { runner, failed, errors } = runnerWith({
      perform: async () => 'done',
      record: (job) => {
        if (job.n === 2) throw new Error('UNIQUE constraint failed: reward_claims.project_id, reward_claims.coupon_code');
        recorded.push(job.n);
      },
    });
    expect(await runner.runDue()).toBe(2);
    expect(recorded).toEqual([1]);
    expect(failed).toEqual([[2, 'internal_error (a job failed to record its outcome; see the server log)']]);
    expect(errors).toEqual(['job runner: a job failed to record its outcome']);
  });

  it('records a job that throws as a failed attempt', async () => {
    const { runner, failed } = runnerWith({
      perform: async (job) => {
        if (job.n === 1) throw new Error('a bug');
        return 'done';
      },
      record: () => undefined,
    });
    expect(await runner.runDue()).toBe(2);
    expect(failed).toEqual([[1, 'internal_error (a job failed; see the server log)']]);
  });
});

describe("a webhook delivery's failed attempts on our side", () => {
  it('count towards its attempts on the usual schedule and end it dead, without counting against its endpoint', async () => {
    const server = await startTestServer({ clock: new TestClock(), webhooks: { runner: false } });
    try {
      const hook = await server.api.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['member.created'] });
      expect(hook.status, hook.text).toBe(201);
      expect((await server.api.post('/api/v1/members', { externalId: 'ada' })).status).toBe(201);
      const { db } = server.ctx;
      const id = db.prepare('SELECT id FROM webhook_deliveries').pluck().get() as number;
      const row = () => db.prepare('SELECT status, attempts, run_at, last_error FROM webhook_deliveries WHERE id = ?').get(id);
      expect(recordAttemptError(db, id, 'internal_error (a job failed; see the server log)', server.clock.now())).toEqual({ dead: false });
      expect(row()).toEqual({ status: 'pending', attempts: 1, run_at: new Date(server.clock.now().getTime() + 60_000).toISOString(),
        last_error: 'internal_error (a job failed; see the server log)' });
      for (let attempt = 2; attempt < MAX_ATTEMPTS; attempt++) expect(recordAttemptError(db, id, 'internal_error', server.clock.now()).dead).toBe(false);
      expect(recordAttemptError(db, id, 'internal_error', server.clock.now())).toEqual({ dead: true });
      expect(row()).toMatchObject({ status: 'dead', attempts: MAX_ATTEMPTS });
      expect(db.prepare('SELECT failing_since, failed_deliveries, is_active FROM webhooks').get()).toEqual({ failing_since: null, failed_deliveries: 0, is_active: 1 });
    } finally {
      await server.stop();
    }
  });
});
