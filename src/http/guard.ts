import type { H3Event } from 'h3';
import type { Clock } from '../shared/clock.ts';
import { AppError } from '../shared/errors.ts';
import type { ProjectRateLimits } from '../domain/project/settings.ts';
import type { Logger } from '../shared/log.ts';
import { parseRate, type Rate } from '../shared/rates.ts';
import { TokenBuckets } from './rate-limit.ts';
import { canonicalAddress, forwardedClient, rateKey } from './client-address.ts';

/** Every rate limit, written as rates (`600/min`, `off`). The first four a project may override. */
export interface RateLimitSettings {
  /** Server API requests per secret key: a safety valve far above what a shop's servers send. */
  apiKey: string;
  /** Widget requests per member. */
  member: string;
  /** Widget requests that change something (all but GET and init) per member: bounds the events and deliveries one member makes. */
  memberWrites: string;
  /** Failed promo-code redemptions per member (widget and server API). */
  promoFailures: string;
  /** Requests per client address to everything but the server API (widget API, pages, /healthz). */
  address: string;
  /** Failed credential checks (keys, widget tickets and sessions, signatures, the metrics token) per client address; right ones are never limited. */
  authFailures: string;
  /** Failed promo-code redemptions from the widget per client address, over all its members. */
  promoFailuresPerAddress: string;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  apiKey: '100000/s',
  member: '120/min',
  memberWrites: '120/h',
  promoFailures: '10/h',
  address: '600/min',
  authFailures: '60/h',
  promoFailuresPerAddress: '30/h',
};

export interface GuardOptions {
  /** Server-wide limits; each one not given keeps its default. */
  rateLimits?: Partial<RateLimitSettings> | undefined;
  /** Addresses of reverse proxies whose X-Forwarded-For is believed; without one, the socket's address is the client's. */
  trustedProxies?: string[] | undefined;
}

type Kind = keyof RateLimitSettings;

/** A project's own limits are looked up at most this often (PATCH /project forgets them at once). */
const PROJECT_LIMITS_TTL_MS = 10_000;

const rateLimited = (message: string, seconds: number) =>
  new AppError(429, 'rate_limited', `${message} Retry in ${seconds} s.`, { 'retry-after': String(seconds) });

/** Headers by which proxies name the client; the limits believe only X-Forwarded-For, and only from a trusted proxy. */
const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

const FORWARDING_WARNING = 'but --trusted-proxy is not set, so every client is counted by the address of the socket: behind a reverse proxy, '
  + 'every shopper shares the proxy\'s rate limits. Set --trusted-proxy (PUNCHCARD_TRUSTED_PROXY) to the proxy\'s address.';

/** The rate limits and client addresses of one server: in memory, per process. */
export class Guard {
  readonly #rates: Record<Kind, Rate | null>;
  readonly #buckets: Record<Kind, TokenBuckets>;
  readonly #trusted: Set<string>;
  readonly #projectLimits = new Map<string, { limits: ProjectRateLimits; at: number }>();
  /** Requests since start that carried forwarding headers while no proxy is trusted. */
  #untrustedForwarding = 0;
  /** Per secret key, when its last request came (the admin's keys list): one entry per key. */
  readonly #keyUsedAt = new Map<string, number>();

  constructor(
    options: GuardOptions,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly projectLimits: (projectId: string) => ProjectRateLimits,
  ) {
    const settings = { ...DEFAULT_RATE_LIMITS, ...options.rateLimits };
    const kinds = Object.keys(DEFAULT_RATE_LIMITS) as Kind[];
    this.#rates = Object.fromEntries(kinds.map((kind) => [kind, parseRate(settings[kind], `rate limit "${kind}"`)])) as Record<Kind, Rate | null>;
    // One Map per kind, so a flood of one kind (say, addresses) never evicts another's counts.
    this.#buckets = Object.fromEntries(kinds.map((kind) => [kind, new TokenBuckets(clock)])) as Record<Kind, TokenBuckets>;
    this.#trusted = new Set((options.trustedProxies ?? []).map((proxy) => {
      const address = canonicalAddress(proxy);
      if (address === null) throw new Error(`--trusted-proxy: "${proxy}" is not an IP address.`);
      return address;
    }));
  }

  /**
   * The key the client is counted under (client-address.ts): the socket's address, unless the
   * socket is a trusted proxy; then the address X-Forwarded-For names past the trusted proxies.
   */
  clientAddress(event: H3Event): string {
    const socket = canonicalAddress(event.req.ip ?? '') ?? 'unknown';
    const forwarded = this.#trusted.has(socket) ? event.req.headers.get('x-forwarded-for') : null;
    return rateKey(forwarded === null ? socket : forwardedClient(forwarded, this.#trusted) ?? socket);
  }

  /**
   * Once per request (app.ts): forwarding headers while no proxy is trusted mean, most likely, a
   * reverse proxy the server was not told of. Counted for /healthz, and logged at the first.
   */
  noteForwarding(event: H3Event): void {
    if (this.#trusted.size > 0 || !FORWARDING_HEADERS.some((name) => event.req.headers.has(name))) return;
    if (this.#untrustedForwarding++ === 0) this.log.warn(`A request arrived with forwarding headers (X-Forwarded-For, Forwarded or X-Real-IP) ${FORWARDING_WARNING}`);
  }

  /** What /healthz reports of the address setup: nothing while it looks right. */
  warnings(): string[] {
    const count = this.#untrustedForwarding;
    if (count === 0) return [];
    return [`${count} request${count === 1 ? '' : 's'} since the server started carried forwarding headers (X-Forwarded-For, Forwarded or X-Real-IP) ${FORWARDING_WARNING}`];
  }

  #take(kind: Kind, key: string, rate: Rate | null, message: string): void {
    if (rate === null) return;
    const wait = this.#buckets[kind].take(key, rate);
    if (wait > 0) throw rateLimited(message, wait);
  }

  #projectRate(kind: keyof ProjectRateLimits, limits: ProjectRateLimits): Rate | null {
    const own = limits[kind];
    return own === null ? this.#rates[kind] : parseRate(own, `rateLimits.${kind}`);
  }

  /** The project's own limits, from a short cache: the secret-key path must not read settings on every call. */
  #limitsOf(projectId: string): ProjectRateLimits {
    const now = this.clock().getTime();
    const cached = this.#projectLimits.get(projectId);
    if (cached && now - cached.at < PROJECT_LIMITS_TTL_MS) return cached.limits;
    const limits = this.projectLimits(projectId);
    this.#projectLimits.set(projectId, { limits, at: now });
    return limits;
  }

  /** After PATCH /project: the next request uses the new limits. */
  forgetProject(projectId: string): void {
    this.#projectLimits.delete(projectId);
  }

  /** Everything but the server API, per client address. */
  limitAddress(event: H3Event): void {
    this.#take('address', this.clientAddress(event), this.#rates.address, 'Too many requests from your address.');
  }

  /**
   * Runs a key or signature check, and limits only its failures: a right credential always passes
   * (keys, secrets and signatures cannot be guessed, so answering one tells a guesser nothing, and
   * someone else's failures from a shared address, such as a proxy's, never lock the shop out). A
   * wrong one spends a token of the address's budget; once that is spent it answers 429, not 401.
   */
  authAttempt<T>(event: H3Event, attempt: () => T): T {
    try {
      return attempt();
    } catch (error) {
      const rate = this.#rates.authFailures;
      if (rate === null || !(error instanceof AppError) || error.status !== 401) throw error;
      const wait = this.#buckets.authFailures.take(this.clientAddress(event), rate);
      throw wait > 0 ? rateLimited('Too many failed authentication attempts from your address.', wait) : error;
    }
  }

  /** Server API calls per secret key. */
  limitApiKey(keyId: string, projectId: string): void {
    this.#take('apiKey', keyId, this.#projectRate('apiKey', this.#limitsOf(projectId)), 'Too many requests with this API key.');
    this.#keyUsedAt.set(keyId, this.clock().getTime());
  }

  /** When this server last took a request with the key (since it started: nothing is written per request); null if it has not. */
  keyLastUsed(keyId: string): string | null {
    const at = this.#keyUsedAt.get(keyId);
    return at === undefined ? null : new Date(at).toISOString();
  }

  /** Widget calls per member; `write` also counts against the member's budget of changes. */
  limitMember(projectId: string, externalId: string, write: boolean): void {
    const limits = this.#limitsOf(projectId);
    const member = `${projectId}\n${externalId}`;
    this.#take('member', member, this.#projectRate('member', limits), 'Too many requests for this member.');
    if (write) this.#take('memberWrites', member, this.#projectRate('memberWrites', limits), 'Too many changes for this member.');
  }

  /**
   * Runs a promo-code redemption. While the member (and, from the widget, the address) has used
   * up its failed attempts, no code is even looked up; every 4xx answer uses one up.
   */
  async promoAttempt<T>(target: { projectId: string; externalId: string; event?: H3Event }, attempt: () => Promise<T>): Promise<T> {
    const memberRate = this.#projectRate('promoFailures', this.#limitsOf(target.projectId));
    const counted: [TokenBuckets, string, Rate][] = [];
    if (memberRate) counted.push([this.#buckets.promoFailures, `${target.projectId}\n${target.externalId}`, memberRate]);
    if (target.event && this.#rates.promoFailuresPerAddress) {
      counted.push([this.#buckets.promoFailuresPerAddress, this.clientAddress(target.event), this.#rates.promoFailuresPerAddress]);
    }
    const wait = Math.max(0, ...counted.map(([buckets, key, rate]) => buckets.peek(key, rate)));
    if (wait > 0) throw rateLimited('Too many wrong promo codes; try again later.', wait);
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof AppError && error.status >= 400 && error.status < 500) for (const [buckets, key, rate] of counted) buckets.spend(key, rate);
      throw error;
    }
  }
}
