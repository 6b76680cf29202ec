import { Agent as HttpAgent, request as httpRequest, STATUS_CODES, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Db } from '../db/connection.ts';
import type { Clock } from '../shared/clock.ts';
import {
  activeWebhooks, claimEndpointDeliveries, DEFAULT_DISABLE_AFTER_MS, DEFAULT_DISABLE_POLICY, dueCount, nextDueAt, recordAttemptError, recordDelivered, recordFailed,
  takeOverLeases, type ClaimedDelivery, type DisablePolicy,
} from './deliveries.ts';
import type { WriteRunner } from '../domain/ledger/expiry.ts';
import { onEnqueue } from '../domain/events/record-event.ts';
import type { SecretBox } from '../shared/secrets.ts';
import { signMessage, type SignedMessage } from './signing.ts';
import { resolveSafely, systemResolver, type Resolver, type UrlPolicy } from './url-policy.ts';
import type { Logger } from '../shared/log.ts';
import { allot, endpointCaps, ProvenEndpoints } from './fair-share.ts';
import { JobRunner, type ClaimArguments } from '../jobs/runner.ts';
import { Pacer } from '../jobs/pacer.ts';

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
  /** How long dead deliveries (and their events) are kept. */
  deadRetentionMs?: number;
  /** An endpoint is disabled when nothing has succeeded for this long (across several failed deliveries). */
  disableAfterMs?: number;
  /** Where the runner's warnings go (tests listen here); the server's logger by default. */
  log?: Logger;
}

/** Deliveries in flight the paced runner always allows, and where it starts after each start-up. */
export const PACED_MIN_IN_FLIGHT = 2;

export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_DEAD_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

const formatDuration = (ms: number) =>
  ms % 86_400_000 === 0 ? `${ms / 86_400_000} days` : ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : `${Math.round(ms / 1000)} s`;

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

/** What is read of a receiver's answer at most: its status decides; the body is never kept or shown. */
const MAX_RESPONSE_BYTES = 4096;

/** Connecting may take this long at most (the whole attempt has `timeoutMs`). */
const CONNECT_TIMEOUT_MS = 5_000;

/** An attempt's failure, as a short class (`timeout`, `http_500`, …) and our own words; never the receiver's. */
class AttemptFailure extends Error {}

/** Our words for a socket or TLS error: its class and code, nothing the other side sent. */
function classify(error: unknown): string {
  if (error instanceof AttemptFailure) return error.message;
  const code = String((error as NodeJS.ErrnoException).code ?? '');
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection_reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return `dns_error (${code})`;
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO/.test(code)) return `tls_error (${code})`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `unreachable (${code})`;
  return code ? `network_error (${code})` : 'network_error';
}

/**
 * POSTs the message and resolves with the status as soon as the answer's head arrives. The body is
 * drained up to a few KiB (so a keep-alive socket can serve again) and past that the socket is
 * dropped: a receiver answering 10 MB costs 4 KiB. Connecting has its own, shorter, limit.
 */
function sendRequest(url: URL, message: SignedMessage, addresses: { address: string; family: number }[], signal: AbortSignal): Promise<number> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, {
      method: 'POST',
      headers: { ...message.headers, 'content-length': String(Buffer.byteLength(message.body)) },
      agent: agents[url.protocol as 'http:' | 'https:'],
      signal,
      ...(addresses.length > 0 ? { lookup: pinnedLookup(addresses) } : {}),
    }, (res: IncomingMessage) => {
      resolve(res.statusCode ?? 0);
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      res.on('error', () => undefined); // the status is in; a torn body changes nothing
    });
    req.once('socket', (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(() => req.destroy(new AttemptFailure(`connect_timeout (no connection within ${CONNECT_TIMEOUT_MS} ms)`)), CONNECT_TIMEOUT_MS);
      socket.once('connect', () => clearTimeout(timer));
      req.once('close', () => clearTimeout(timer));
    });
    req.once('error', reject);
    req.end(message.body);
  });
}

/**
 * One attempt: resolve and check the host, POST the signed message, any 2xx is success. A failure
 * is recorded as a class and our own words (`http_503 (Service Unavailable)`, `timeout …`,
 * `blocked_address: …`), never what the receiver answered, so webhooks cannot be used to read
 * internal services. The timer ends with the attempt.
 */
export async function attemptDelivery(urlText: string, message: SignedMessage, settings: WebhookSettings): Promise<AttemptOutcome> {
  const started = performance.now();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const failure = new AttemptFailure(`timeout (no answer within ${settings.timeoutMs} ms)`);
      controller.abort(failure);
      reject(failure);
    }, settings.timeoutMs);
  });
  timedOut.catch(() => undefined);
  const elapsed = () => Math.round(performance.now() - started);
  try {
    let addresses: { address: string; family: number }[];
    try {
      addresses = await Promise.race([resolveSafely(urlText, settings, settings.resolve), timedOut]);
    } catch (error) {
      if (error instanceof AttemptFailure || (error as NodeJS.ErrnoException).code !== undefined) throw error;
      throw new AttemptFailure(`blocked_address: ${(error as Error).message}`);
    }
    const status = await Promise.race([sendRequest(new URL(urlText), message, addresses, controller.signal), timedOut]);
    const success = status >= 200 && status < 300;
    return { success, statusCode: status, durationMs: elapsed(), error: success ? null : `http_${status} (${STATUS_CODES[status] ?? 'unknown status'})` };
  } catch (error) {
    const reason = controller.signal.aborted ? classify(controller.signal.reason) : classify(error);
    return { success: false, statusCode: null, durationMs: elapsed(), error: reason };
  } finally {
    clearTimeout(timer);
  }
}

export interface DeliveryRunnerDeps {
  db: Db;
  box: SecretBox;
  write: WriteRunner;
  clock: Clock;
  log: Logger;
  settings: WebhookSettings;
  /** Requests' writes so far (a running count): the runner sends fewer at once while they come. */
  foreground?: () => number;
  /** Told each attempt's outcome once recorded (the server's metrics). */
  onOutcome?: (outcome: 'delivered' | 'failed' | 'dead') => void;
}

type DeliveryJob = ClaimedDelivery & { key: string };

/** The webhook delivery runner: the durable job table in src/domain/deliveries.ts, sent over HTTP. */
export function createDeliveryRunner(deps: DeliveryRunnerDeps, options: DeliveryOptions = {}): JobRunner<DeliveryJob, AttemptOutcome> {
  const { db, box, write, clock, settings } = deps;
  const log = options.log ?? deps.log;
  const policy: DisablePolicy = { ...DEFAULT_DISABLE_POLICY, disableAfterMs: options.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS };
  // Opening a sealed secret per delivery showed up in profiles; a rotation seals a new value, so
  // keying by the sealed text never serves a stale secret.
  const secrets = new Map<string, string>();
  const openSecret = (sealed: string) => {
    let secret = secrets.get(sealed);
    if (secret === undefined) {
      if (secrets.size >= 1000) secrets.clear();
      secret = box.open(sealed);
      secrets.set(sealed, secret);
    }
    return secret;
  };
  const concurrency = options.concurrency ?? 128;
  let turn = 0;
  const proven = new ProvenEndpoints();
  /**
   * The fair claim: every active endpoint is a contender; one with room (below its fair share) has
   * its due deliveries counted through its own index, at most as many as it has room for; a full
   * one is skipped without reading its rows. The free slots then go round robin between projects.
   * Every statement is O(endpoints + batch), whatever the backlog.
   */
  const claim = (now: Date, leaseUntil: Date, { limit, perKey, inFlight }: ClaimArguments): ClaimedDelivery[] => {
    const webhooks = activeWebhooks(db);
    const caps = endpointCaps(webhooks.filter((w) => inFlight.has(w.id) || dueCount(db, w.id, now, 1) > 0), concurrency, perKey);
    const wants = webhooks.filter((w) => caps.has(w.id)).map((w) => {
      const room = proven.cap(w.id, caps.get(w.id)!) - (inFlight.get(w.id) ?? 0);
      return { ...w, want: room > 0 ? dueCount(db, w.id, now, Math.min(room, limit)) : 0 };
    });
    const given = allot(wants, limit, turn++);
    return [...given].flatMap(([webhookId, count]) => claimEndpointDeliveries(db, webhookId, now, leaseUntil, count));
  };
  const runner = new JobRunner<DeliveryJob, AttemptOutcome>({
    claim: (now, leaseUntil, limits) => claim(now, leaseUntil, limits).map((job) => ({ ...job, key: job.webhookId })),
    perform(job) {
      const message = signMessage(job.event, openSecret(job.sealedSecret), clock());
      message.headers['x-punchcard-delivery'] = job.publicId;
      return attemptDelivery(job.url, message, settings);
    },
    record(job, outcome, now) {
      proven.attempted(job.webhookId, outcome.success);
      if (outcome.success) {
        if (recordDelivered(db, job.id, job.webhookId, outcome.statusCode!, now).recovered) log.info(`webhook ${job.webhookId}: delivering again`);
        deps.onOutcome?.('delivered');
        return;
      }
      const effect = recordFailed(db, job.id, { httpStatus: outcome.statusCode, error: outcome.error! }, now, policy);
      deps.onOutcome?.(effect.dead ? 'dead' : 'failed');
      if (effect.startedFailing) log.warn(`webhook ${job.webhookId}: failing (${outcome.error}); it is disabled if nothing succeeds for ${formatDuration(policy.disableAfterMs)}`);
      if (effect.disabled) log.warn(`webhook ${job.webhookId}: disabled, ${effect.disabled}; new events are not queued for it until it is re-enabled (punchcard webhooks enable ${job.webhookId})`);
    },
    fail(job, error, now) {
      deps.onOutcome?.(recordAttemptError(db, job.id, error, now).dead ? 'dead' : 'failed');
    },
    nextDueAt: () => nextDueAt(db),
    takeOverLeases: (now) => takeOverLeases(db, now),
  }, {
    write,
    clock,
    log,
    concurrency,
    perKey: options.perEndpoint ?? 32,
    leaseMs: settings.timeoutMs + 30_000,
    pollMs: 5_000,
    pacer: () => new Pacer({
      min: PACED_MIN_IN_FLIGHT, max: concurrency, intervalMs: 100,
      foreground: deps.foreground ?? (() => 0), arrivals: () => proven.arrivals(), now: () => performance.now(),
    }),
  });
  onEnqueue(db, (webhookIds) => {
    proven.enqueued(webhookIds);
    runner.wake();
  });
  return runner;
}
