import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Db } from '../db/connection.ts';
import type { Clock } from '../domain/clock.ts';
import {
  claimDueDeliveries, claimEndpointDeliveries, nextDueAt, recordDelivered, recordFailed, takeOverLeases, type ClaimedDelivery,
} from '../domain/deliveries.ts';
import type { WriteRunner } from '../domain/expiry.ts';
import { onEnqueue } from '../domain/outbox.ts';
import type { SecretBox } from '../domain/secrets.ts';
import { signMessage, type SignedMessage } from '../domain/webhook-signature.ts';
import { resolveSafely, systemResolver, type Resolver, type UrlPolicy } from '../domain/webhook-url.ts';
import type { Logger } from '../log.ts';
import { JobRunner, type ClaimArguments } from './runner.ts';

/** How deliveries reach receivers. */
export interface WebhookSettings extends UrlPolicy {
  /** One attempt's whole budget: DNS, connect, response. */
  timeoutMs: number;
  /** DNS; tests substitute a fake for names they need to control. */
  resolve: Resolver;
}

export interface DeliveryOptions extends Partial<WebhookSettings> {
  /** Start the runner with the server (default). false: the caller drives it with `runDue()`. */
  runner?: boolean;
  /** Deliveries in flight at once, overall and per endpoint. */
  concurrency?: number;
  perEndpoint?: number;
  /** How long delivered rows (and their events) are kept before the hourly prune removes them. */
  retentionMs?: number;
}

export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export const DEFAULT_TIMEOUT_MS = 10_000;

export const webhookSettings = (options: DeliveryOptions = {}): WebhookSettings => ({
  allowInsecure: options.allowInsecure ?? false,
  timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  resolve: options.resolve ?? systemResolver,
});

export interface AttemptOutcome {
  success: boolean;
  statusCode: number | null;
  durationMs: number;
  /** Why it failed, for the delivery's last_error. */
  error: string | null;
}

// Keep-alive pools: a receiver that gets many events keeps its connections warm.
const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: 64 }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * Connects only to the addresses that were checked, so a DNS answer that changes between the check
 * and the connection (rebinding) cannot take the request inward.
 */
function pinnedLookup(addresses: { address: string; family: number }[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    if (wanted.length === 0) return callback(Object.assign(new Error('no checked address of the wanted family'), { code: 'ENOTFOUND' }), '', 0);
    if (options.all) return (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, wanted);
    callback(null, wanted[0]!.address, wanted[0]!.family);
  };
}

const ERROR_SNIPPET = 200;

function post(url: URL, message: SignedMessage, addresses: { address: string; family: number }[], signal: AbortSignal): Promise<{ status: number; snippet: string }> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, {
      method: 'POST',
      headers: { ...message.headers, 'content-length': String(Buffer.byteLength(message.body)) },
      agent: agents[url.protocol as 'http:' | 'https:'],
      signal,
      ...(addresses.length > 0 ? { lookup: pinnedLookup(addresses) } : {}),
    }, (res: IncomingMessage) => {
      // Keep the start of the answer for an operator reading last_error; discard the rest.
      let snippet = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (snippet.length < ERROR_SNIPPET) snippet += chunk.slice(0, ERROR_SNIPPET - snippet.length);
      });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, snippet }));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(message.body);
  });
}

/** One attempt: resolve and check the host, POST the signed message, any 2xx is success. */
export async function attemptDelivery(urlText: string, message: SignedMessage, settings: WebhookSettings): Promise<AttemptOutcome> {
  const started = performance.now();
  const signal = AbortSignal.timeout(settings.timeoutMs);
  const timedOut = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
  timedOut.catch(() => undefined);
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const addresses = await Promise.race([resolveSafely(urlText, settings, settings.resolve), timedOut]);
    const { status, snippet } = await Promise.race([post(new URL(urlText), message, addresses, signal), timedOut]);
    const success = status >= 200 && status < 300;
    return { success, statusCode: status, durationMs: elapsed(), error: success ? null : `HTTP ${status}${snippet ? `: ${snippet.trim()}` : ''}` };
  } catch (error) {
    const reason = signal.aborted ? `timed out after ${settings.timeoutMs} ms` : (error as Error).message;
    return { success: false, statusCode: null, durationMs: elapsed(), error: reason };
  }
}

export interface DeliveryRunnerDeps {
  db: Db;
  box: SecretBox;
  write: WriteRunner;
  clock: Clock;
  log: Logger;
  settings: WebhookSettings;
}

type DeliveryJob = ClaimedDelivery & { key: string };

/** The webhook delivery runner: the durable job table in src/domain/deliveries.ts, sent over HTTP. */
export function createDeliveryRunner(deps: DeliveryRunnerDeps, options: DeliveryOptions = {}): JobRunner<DeliveryJob, AttemptOutcome> {
  const { db, box, write, clock, log, settings } = deps;
  // Opening a sealed secret per delivery showed up in profiles; a rotation seals a new value, so
  // keying by the sealed text never serves a stale secret.
  const secrets = new Map<string, string>();
  const openSecret = (sealed: string) => {
    let secret = secrets.get(sealed);
    if (secret === undefined) {
      if (secrets.size >= 1000) secrets.clear();
      secrets.set(sealed, (secret = box.open(sealed)));
    }
    return secret;
  };
  // Webhooks that may have due deliveries: added by emit() and by sweeps, dropped when a claim
  // finds fewer than it asked for. Between sweeps the runner claims from these alone, so an
  // endpoint's backlog is never scanned past while it is busy.
  const withWork = new Set<string>();
  const claim = (now: Date, leaseUntil: Date, { limit, perKey, inFlight, sweep }: ClaimArguments): ClaimedDelivery[] => {
    if (sweep) {
      const claimed = claimDueDeliveries(db, now, leaseUntil, { limit, perEndpoint: perKey, inFlight });
      for (const job of claimed) withWork.add(job.webhookId);
      for (const [webhookId, count] of inFlight) if (count >= perKey) withWork.add(webhookId);
      return claimed;
    }
    const claimed: ClaimedDelivery[] = [];
    for (const webhookId of withWork) {
      const wanted = Math.min(perKey - (inFlight.get(webhookId) ?? 0), limit - claimed.length);
      if (wanted <= 0) continue;
      const found = claimEndpointDeliveries(db, webhookId, now, leaseUntil, wanted);
      if (found.length < wanted) withWork.delete(webhookId);
      claimed.push(...found);
    }
    return claimed;
  };
  const runner = new JobRunner<DeliveryJob, AttemptOutcome>({
    claim: (now, leaseUntil, limits) => claim(now, leaseUntil, limits).map((job) => ({ ...job, key: job.webhookId })),
    perform(job) {
      const message = signMessage(job.event, openSecret(job.sealedSecret), clock());
      message.headers['x-punchcard-delivery'] = job.publicId;
      return attemptDelivery(job.url, message, settings);
    },
    record(job, outcome, now) {
      if (outcome.success) return recordDelivered(db, job.id, outcome.statusCode!, now);
      const { dead } = recordFailed(db, job.id, { httpStatus: outcome.statusCode, error: outcome.error! }, now);
      if (dead) log.error(`webhook ${job.webhookId}: delivery ${job.publicId} failed ${job.attempts + 1} times (${outcome.error}); the webhook is now marked failed`);
    },
    nextDueAt: () => nextDueAt(db),
    takeOverLeases: (now) => takeOverLeases(db, now),
  }, {
    write,
    clock,
    log,
    concurrency: options.concurrency ?? 128,
    perKey: options.perEndpoint ?? 32,
    leaseMs: settings.timeoutMs + 30_000,
    pollMs: 5_000,
  });
  onEnqueue(db, (webhookIds) => {
    for (const webhookId of webhookIds) withWork.add(webhookId);
    runner.wake();
  });
  return runner;
}
