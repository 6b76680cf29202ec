import { statSync } from 'node:fs';
import type { Counter, Histogram, Registry } from 'prom-client';
import type { H3Event } from 'h3';
import type { Db } from '../db/connection.ts';
import { transactionCountsByType } from '../domain/ledger/stats.ts';
import { deliveryCounts } from '../webhooks/deliveries.ts';

/** Webhook attempts end one of three ways: delivered, failed (retried later), dead (no retry left). */
export type DeliveryOutcome = 'delivered' | 'failed' | 'dead';

type PromClient = Pick<typeof import('prom-client'), 'Registry' | 'Counter' | 'Gauge' | 'Histogram'>;

/** The parts of prom-client the series use (prom-client-parts.d.ts says why not its index). */
async function loadPromClient(): Promise<PromClient> {
  const [registry, counter, gauge, histogram] = await Promise.all([
    import('prom-client/lib/registry.js'), import('prom-client/lib/counter.js'), import('prom-client/lib/gauge.js'), import('prom-client/lib/histogram.js'),
  ]);
  return { Registry: registry.default, Counter: counter.default, Gauge: gauge.default, Histogram: histogram.default };
}

/** Counts kept at most before prom-client is loaded anyway. */
const PENDING_LIMIT = 1000;

/** The registry and the series a server updates as it runs. */
interface Series {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  latency: Histogram<'method' | 'route'>;
  awards: Counter;
  deliveries: Counter<'outcome'>;
  batchSize: Histogram;
}

/**
 * One server's Prometheus metrics, in its own registry (tests run several servers in one process);
 * never loaded by the CLI's other commands.
 * What changes per request is a counter or histogram in memory; what the database knows (ledger
 * rows by type, queue depth, size) is read when /metrics is scraped, never on the request path.
 *
 * prom-client's parts cost a start about 6 ms, so they are loaded just
 * after the first request is answered (setImmediate: once that answer is written), at the first
 * scrape, or once PENDING_LIMIT counts wait (a server no one calls still writes on a schedule);
 * what is counted before then is kept and applied in order once it is loaded.
 */
export class Metrics {
  #series: Series | null = null;
  #loading: Promise<Series> | null = null;
  #pending: ((series: Series) => void)[] = [];

  constructor(private readonly db: Db, private readonly dbPath: string) {}

  /** Counts a finished request under its route pattern (not its URL, which would make a series per member). */
  observe(event: H3Event, status: number, startedAt: number): void {
    const route = event.context.matchedRoute?.route ?? 'unmatched';
    const method = event.req.method;
    const seconds = (performance.now() - startedAt) / 1000;
    this.#record((series) => {
      series.requests.inc({ method, route, status: String(status) });
      series.latency.observe({ method, route }, seconds);
    });
    if (!this.#series) setImmediate(() => this.#loadQuietly());
  }

  /** A point adjustment answered by POST /members/{externalId}/points. */
  award(): void {
    this.#record((series) => series.awards.inc());
  }

  /** A webhook delivery attempt's outcome. */
  delivery(outcome: DeliveryOutcome): void {
    this.#record((series) => series.deliveries.inc({ outcome }));
  }

  /** How many writes one group commit took. */
  batch(size: number): void {
    this.#record((series) => series.batchSize.observe(size));
  }

  /** The registry, prom-client loaded first if it is not yet (/metrics). */
  async registry(): Promise<Registry> {
    return (await this.#load()).registry;
  }

  #record(update: (series: Series) => void): void {
    if (this.#series) {
      update(this.#series);
      return;
    }
    this.#pending.push(update);
    if (this.#pending.length === PENDING_LIMIT) this.#loadQuietly();
  }

  /** A failed load (a broken install) shows at the next scrape, which awaits the same promise. */
  #loadQuietly(): void {
    this.#load().catch(() => undefined);
  }

  #load(): Promise<Series> {
    this.#loading ??= loadPromClient().then((client) => {
      const series = makeSeries(client, this.db, this.dbPath);
      for (const update of this.#pending.splice(0)) update(series);
      this.#series = series;
      return series;
    });
    return this.#loading;
  }
}

function makeSeries({ Counter, Gauge, Histogram, Registry }: PromClient, db: Db, dbPath: string): Series {
  const registry = new Registry();
  const registers = [registry];
  const series: Series = {
    registry,
    requests: new Counter({
      name: 'punchcard_http_requests_total', help: 'HTTP requests by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'] as const, registers,
    }),
    latency: new Histogram({
      name: 'punchcard_http_request_duration_seconds', help: 'Time from request to response, by method and route pattern.',
      labelNames: ['method', 'route'] as const, buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10], registers,
    }),
    awards: new Counter({
      name: 'punchcard_awards_total', help: 'Point adjustments answered by POST /members/{externalId}/points (awards and deductions).', registers,
    }),
    deliveries: new Counter({
      name: 'punchcard_webhook_deliveries_total', help: 'Webhook delivery attempts by outcome (delivered, failed and retried, dead).',
      labelNames: ['outcome'] as const, registers,
    }),
    batchSize: new Histogram({
      name: 'punchcard_group_commit_batch_size', help: 'Writes committed together in one transaction (one fsync).',
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500], registers,
    }),
  };
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
  return series;
}

const fileSize = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};
