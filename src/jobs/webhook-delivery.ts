import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Db } from '../db/connection.ts';
import type { Clock } from '../domain/clock.ts';
import {
  claimEndpointDeliveries, DEFAULT_DISABLE_AFTER_MS, DEFAULT_DISABLE_POLICY, endpointQueues, nextDueAt, recordDelivered, recordFailed,
  takeOverLeases, type ClaimedDelivery, type DisablePolicy,
} from '../domain/deliveries.ts';
import type { WriteRunner } from '../domain/expiry.ts';
import { onEnqueue } from '../domain/outbox.ts';
import type { SecretBox } from '../domain/secrets.ts';
import { signMessage, type SignedMessage } from '../domain/webhook-signature.ts';
import { RefusedAddress, resolveSafely, systemResolver, type Resolver, type UrlPolicy } from '../domain/webhook-url.ts';
import type { Logger } from '../log.ts';
import { JobRunner, type ClaimArguments } from './runner.ts';

/** How deliveries reach receivers. */
export interface WebhookSettings extends UrlPolicy {
  /** One attempt's whole budget: DNS, connect, response. */
  timeoutMs: number;
  /** The part of it the TCP (and TLS) connection may take. */
  connectTimeoutMs: number;
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

export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_DEAD_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

export const webhookSettings = (options: DeliveryOptions = {}): WebhookSettings => {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    allowInsecure: options.allowInsecure ?? false,
    timeoutMs,
    connectTimeoutMs: Math.min(options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, timeoutMs),
    resolve: options.resolve ?? systemResolver,
  };
};

/**
 * Why an attempt failed, in a few words the operator can act on. Never anything the receiver sent
 * beyond its status code: echoing a body would turn webhooks into a probe of internal services.
 */
export type FailureReason = `http_${number}` | 'timeout' | 'connect_timeout' | 'connection_refused' | 'connection_reset' | 'dns_error'
  | 'tls_error' | 'unreachable' | 'blocked_address' | 'network_error';

export interface AttemptOutcome {
  success: boolean;
  statusCode: number | null;
  durationMs: number;
  /** Why it failed, for the delivery's last_error. */
  error: FailureReason | null;
  /** Bytes of the response body read (at most about MAX_RESPONSE_BYTES; the rest is never read). */
  bytesRead: number;
}

/** The most of a response body that is read; past it the connection is dropped. */
export const MAX_RESPONSE_BYTES = 4096;

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

class AttemptTimeout extends Error {
  constructor(readonly reason: 'timeout' | 'connect_timeout') {
    super(reason);
  }
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/;

function classify(error: unknown): FailureReason {
  if (error instanceof AttemptTimeout) return error.reason;
  if (error instanceof RefusedAddress) return 'blocked_address';
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE') return 'connection_reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return 'dns_error';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'unreachable';
  if (TLS_CODE.test(code)) return 'tls_error';
  return 'network_error';
}

/**
 * POSTs and reads the status and at most MAX_RESPONSE_BYTES of the body: a receiver answering
 * megabytes costs the server a few KiB. A body that ends within the cap leaves the socket for
 * keep-alive; a longer one is cut off with its connection.
 */
function post(url: URL, message: SignedMessage, addresses: { address: string; family: number }[], settings: WebhookSettings,
  deadline: { onTimeout(fire: (error: Error) => void): void }): Promise<{ status: number; bytesRead: number }> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let connectTimer: NodeJS.Timeout | undefined;
    const fail = (error: Error) => {
      clearTimeout(connectTimer);
      req.destroy();
      reject(error);
    };
    const req = send(url, {
      method: 'POST',
      headers: { ...message.headers, 'content-length': String(Buffer.byteLength(message.body)) },
      agent: agents[url.protocol as 'http:' | 'https:'],
      ...(addresses.length > 0 ? { lookup: pinnedLookup(addresses) } : {}),
    }, (res: IncomingMessage) => {
      let bytesRead = 0;
      const done = () => resolve({ status: res.statusCode ?? 0, bytesRead });
      res.on('data', (chunk: Buffer) => {
        bytesRead += chunk.length;
        if (bytesRead > MAX_RESPONSE_BYTES) {
          res.removeAllListeners('data');
          res.destroy();
          done();
        }
      });
      res.once('end', done);
      res.once('error', () => done()); // the status is already in
    });
    req.once('socket', (socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(() => fail(new AttemptTimeout('connect_timeout')), settings.connectTimeoutMs);
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    req.once('error', (error) => fail(error));
    req.once('close', () => clearTimeout(connectTimer));
    deadline.onTimeout(fail);
    req.end(message.body);
  });
}

/**
 * One attempt: resolve and check the host, POST the signed message, any 2xx is success. Every timer
 * it sets is cleared when it ends, so a finished attempt holds nothing.
 */
export async function attemptDelivery(urlText: string, message: SignedMessage, settings: WebhookSettings): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let onTimeout: (error: Error) => void = () => undefined;
  let totalTimer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    totalTimer = setTimeout(() => {
      const error = new AttemptTimeout('timeout');
      onTimeout(error);
      reject(error);
    }, settings.timeoutMs);
  });
  timedOut.catch(() => undefined);
  try {
    const addresses = await Promise.race([resolveSafely(urlText, settings, settings.resolve), timedOut]);
    const { status, bytesRead } = await post(new URL(urlText), message, addresses, settings, { onTimeout: (fire) => (onTimeout = fire) });
    const success = status >= 200 && status < 300;
    return { success, statusCode: status, durationMs: elapsed(), error: success ? null : `http_${status}`, bytesRead };
  } catch (error) {
    return { success: false, statusCode: null, durationMs: elapsed(), error: classify(error), bytesRead: 0 };
  } finally {
    clearTimeout(totalTimer);
  }
}

const formatDuration = (ms: number) =>
  ms % 86_400_000 === 0 ? `${ms / 86_400_000} days` : ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : `${Math.round(ms / 1000)} s`;

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
  const { db, box, write, clock, settings } = deps;
  const log = options.log ?? deps.log;
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
  const policy: DisablePolicy = { ...DEFAULT_DISABLE_POLICY, disableAfterMs: options.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS };
  const perEndpoint = options.perEndpoint ?? 16;
  // Endpoints that may have due deliveries, by project: added by emit() and by sweeps, dropped when
  // a claim finds fewer than it asked for. Between sweeps the runner claims from these alone.
  const withWork = new Map<string, Set<string>>();
  const addWork = (projectId: string, webhookId: string) => {
    let endpoints = withWork.get(projectId);
    if (!endpoints) withWork.set(projectId, (endpoints = new Set()));
    endpoints.add(webhookId);
  };
  // Endpoints whose last attempt failed get one delivery in flight until one succeeds: ten
  // black-holed receivers then hold ten slots, not all of them.
  const struggling = new Set<string>();
  // Round robin between projects: each claim starts after the project the last one served.
  let lastProject = '';

  /**
   * Leases due deliveries for up to `limit` free slots, shared out round robin between projects
   * and then between a project's endpoints. A full endpoint is skipped without reading its rows,
   * and each endpoint's rows are reached through its index: O(endpoints + batch), never O(backlog).
   */
  const claim = (now: Date, leaseUntil: Date, { limit, inFlight, sweep }: ClaimArguments): ClaimedDelivery[] => {
    if (sweep) {
      const nowText = now.toISOString();
      for (const queue of endpointQueues(db)) if (queue.nextRunAt !== null && queue.nextRunAt <= nowText) addWork(queue.projectId, queue.webhookId);
    }
    const room = (webhookId: string) => (struggling.has(webhookId) ? 1 : perEndpoint) - (inFlight.get(webhookId) ?? 0);
    const projects = [...withWork.keys()].sort();
    const first = projects.findIndex((projectId) => projectId > lastProject);
    const order = first <= 0 ? projects : [...projects.slice(first), ...projects.slice(0, first)];
    const claimed: ClaimedDelivery[] = [];
    const taken = new Map<string, number>();
    for (let progress = true; progress && claimed.length < limit;) {
      progress = false;
      for (const projectId of order) {
        const endpoints = withWork.get(projectId);
        if (!endpoints) continue;
        let share = Math.max(1, Math.floor((limit - claimed.length) / order.length));
        for (const webhookId of endpoints) {
          const wanted = Math.min(room(webhookId) - (taken.get(webhookId) ?? 0), share, limit - claimed.length);
          if (wanted <= 0) continue;
          const found = claimEndpointDeliveries(db, webhookId, now, leaseUntil, wanted);
          if (found.length < wanted) endpoints.delete(webhookId);
          if (found.length === 0) continue;
          taken.set(webhookId, (taken.get(webhookId) ?? 0) + found.length);
          claimed.push(...found);
          share -= found.length;
          lastProject = projectId;
          progress = true;
          if (share <= 0) break;
        }
        if (endpoints.size === 0) withWork.delete(projectId);
      }
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
      if (outcome.success) {
        struggling.delete(job.webhookId);
        if (recordDelivered(db, job.id, job.webhookId, outcome.statusCode!, now).recovered) log.info(`webhook ${job.webhookId}: delivering again`);
        return;
      }
      struggling.add(job.webhookId);
      const effect = recordFailed(db, job.id, { httpStatus: outcome.statusCode, error: outcome.error! }, now, policy);
      if (effect.startedFailing) log.warn(`webhook ${job.webhookId}: failing (${outcome.error}); it is disabled if nothing succeeds for ${formatDuration(policy.disableAfterMs)}`);
      if (effect.disabled) log.warn(`webhook ${job.webhookId}: disabled, ${effect.disabled}; new events are not queued for it until it is re-enabled (punchcard webhooks enable ${job.webhookId})`);
    },
    nextDueAt: () => nextDueAt(db),
    takeOverLeases: (now) => takeOverLeases(db, now),
  }, {
    write,
    clock,
    log,
    concurrency: options.concurrency ?? 128,
    perKey: perEndpoint,
    leaseMs: settings.timeoutMs + 30_000,
    pollMs: 5_000,
  });
  onEnqueue(db, (projectId, webhookIds) => {
    for (const webhookId of webhookIds) addWork(projectId, webhookId);
    runner.wake();
  });
  return runner;
}
