import { statSync } from 'node:fs';
import type { Counter, Histogram, Registry } from 'prom-client';
import type { H3Event } from 'h3';
import type { Db } from '../db/connection.ts';
import { transactionCountsByType } from '../domain/ledger/stats.ts';
import { deliveryCounts } from '../webhooks/deliveries.ts';

/** Webhook attempts end one of three ways: delivered, failed (retried later), dead (no retry left). */
export type DeliveryOutcome = 'delivered' | 'failed' | 'dead';

type PromClient = typeof import('prom-client');

/**
 * The metrics of a server, prom-client loaded only then: the CLI's other commands share the
 * bundle and would otherwise load it on every run.
 */
export async function createMetrics(db: Db, dbPath: string): Promise<Metrics> {
  return new Metrics(await import('prom-client'), db, dbPath);
}

/**
 * One server's Prometheus metrics, in its own registry (tests run several servers in one process).
 * What changes per request is a counter or histogram in memory; what the database knows (ledger
 * rows by type, queue depth, size) is read when /metrics is scraped, never on the request path.
 */
export class Metrics {
  readonly registry: Registry;
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly latency: Histogram<'method' | 'route'>;
  readonly awards: Counter;
  readonly deliveries: Counter<'outcome'>;
  readonly batchSize: Histogram;

  constructor({ Counter, Gauge, Histogram, Registry }: PromClient, db: Db, dbPath: string) {
    this.registry = new Registry();
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'punchcard_http_requests_total', help: 'HTTP requests by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'] as const, registers,
    });
    this.latency = new Histogram({
      name: 'punchcard_http_request_duration_seconds', help: 'Time from request to response, by method and route pattern.',
      labelNames: ['method', 'route'] as const, buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10], registers,
    });
    this.awards = new Counter({
      name: 'punchcard_awards_total', help: 'Point adjustments answered by POST /members/{externalId}/points (awards and deductions).', registers,
    });
    this.deliveries = new Counter({
      name: 'punchcard_webhook_deliveries_total', help: 'Webhook delivery attempts by outcome (delivered, failed and retried, dead).',
      labelNames: ['outcome'] as const, registers,
    });
    this.batchSize = new Histogram({
      name: 'punchcard_group_commit_batch_size', help: 'Writes committed together in one transaction (one fsync).',
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500], registers,
    });
    new Gauge({
      name: 'punchcard_ledger_transactions', help: 'Ledger transactions in the database, by type.', labelNames: ['type'] as const, registers,
      collect() {
        this.reset();
        for (const { type, n } of transactionCountsByType(db)) this.set({ type }, n);
      },
    });
    new Gauge({
      name: 'punchcard_job_queue_depth', help: 'Webhook deliveries waiting to be sent (pending) and given up (dead).', labelNames: ['status'] as const, registers,
      collect() {
        const { pending, dead } = deliveryCounts(db);
        this.set({ status: 'pending' }, pending);
        this.set({ status: 'dead' }, dead);
      },
    });
    new Gauge({
      name: 'punchcard_database_size_bytes', help: 'Size of the SQLite database file and its write-ahead log.', labelNames: ['file'] as const, registers,
      collect() {
        this.set({ file: 'database' }, fileSize(dbPath));
        this.set({ file: 'wal' }, fileSize(`${dbPath}-wal`));
      },
    });
  }

  /** Counts a finished request under its route pattern (not its URL, which would make a series per member). */
  observe(event: H3Event, status: number, startedAt: number): void {
    const route = event.context.matchedRoute?.route ?? 'unmatched';
    const method = event.req.method;
    this.requests.inc({ method, route, status: String(status) });
    this.latency.observe({ method, route }, (performance.now() - startedAt) / 1000);
  }
}

const fileSize = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};
