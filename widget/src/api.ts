// The widget's only way to the server. The page's signed ticket (X-Widget-Auth) is exchanged by
// init for a session token, sent as `Authorization: Bearer` from then on and kept in
// sessionStorage per project and member; when it ends, the shop's fetchAuth gives a new ticket.
import type { Key } from './strings.ts';

/** A signature the shop's server made: what `fetchAuth` resolves to. */
export interface Ticket {
  timestamp: number;
  signature: string;
  /** Profile fields as the JSON text the shop's server signed; an object is unsigned and ignored by the server. */
  member?: string | Record<string, unknown>;
}

export interface Config extends Ticket {
  publicKey: string;
  externalId: string;
  apiUrl?: string;
  theme?: Partial<Theme> & { position?: 'left' | 'right' };
  language?: string;
  displayMode?: 'floating' | 'custom';
  /** Asks the shop's server for a fresh signature: called when the widget has no live session or gets a 401. */
  fetchAuth?: () => Promise<Ticket>;
  onReady?: () => void;
  onError?: (error: Error) => void;
  onWelcomeBonus?: (points: number) => void;
}

export interface Theme {
  primaryColor: string;
  textColor: string;
  backgroundColor: string;
  /** Corners in px: cards and buttons take it, the drawer a little more. */
  borderRadius?: number;
  /** The shop's font stack; null keeps the system font. */
  fontFamily?: string | null;
}

/** The member's level (0, name null, below every level) and the next one to reach. */
export interface Level {
  level: number;
  name: string | null;
  minTotalPointsEarned: number;
  next: { level: number; name: string; minTotalPointsEarned: number } | null;
}

/** The language the server picked from the visitor's wishes, and its strings by key (init, guest view). */
export interface Words {
  language: string;
  strings: Record<Key, string>;
}

export interface WidgetSettings {
  languages: string[];
  defaultLanguage: string;
  features: Record<string, boolean>;
  displayMode: 'floating' | 'custom';
  position: 'left' | 'right';
  theme: Theme;
  /** The programme's name in the header; null: the project's name. */
  programName: string | null;
  /** The launcher's text in every language; null: the balance for a member, "Open rewards" for a guest. */
  launcherText: string | null;
}

export interface Member {
  id: string;
  externalId: string;
  name: string | null;
  points: number;
  totalPointsEarned: number;
  currentStreak: number;
  longestStreak: number;
}

export interface Multiplier { name: string; multiplier: number; endsAt: string; sources: string[] | null }

export interface InitResponse extends Words {
  project: { name: string; widgetSettings: WidgetSettings };
  member: Member;
  /** The running multiplier events, for the home to show. */
  activeMultipliers: Multiplier[];
  welcomeBonus: number;
  level: Level;
  session?: { token: string; expiresAt: string };
}

/** GET /api/widget/guest: the programme for a visitor who is not signed in (the client is `guest` below). */
export interface Guest {
  signUpUrl: string | null; signInUrl: string | null; welcomeBonus: number;
  levels: { level: number; name: string; minTotalPointsEarned: number }[];
  rewards: { id: string; name: string; pointsCost: number }[];
  waysToEarn: {
    quests: { id: string; name: string; points: number }[];
    checkin: { points: number } | null;
    share: { pointsPerShare: number } | null;
    referral: { referrerReward: number } | null;
  };
}

/** The guest view's answer: the programme, and the words as init has them. */
export type GuestResponse = Guest & Words & { project: { name: string; widgetSettings: WidgetSettings } };

/** What the visitor would read best, most wanted first: init's `language`, then the browser's. */
const wishes = (language: string | undefined) => [language, ...navigator.languages].filter((l): l is string => !!l).slice(0, 10);

/** Why an action is closed and when it opens again (GET /games, /social-share, check-in). */
export interface Availability { reason: 'max' | 'daily' | 'cooldown' | null; availableAt: string | null }

/**
 * An error answer of the widget API: status 0 when the server could not be reached, 401 when the
 * session ended and no new ticket could be had, 403 off or origin_not_allowed, 404, 429 (retryAfter s).
 */
export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly code?: string, readonly retryAfter?: number) {
    super(message);
  }
}

/** The translation key of an error, so the shopper reads it in their language and never an internal id. */
export function errorKey(error: unknown): Key {
  if (!(error instanceof ApiError)) return 'error';
  const keys: Record<number, Key> = { 0: 'offline', 401: 'expired', 403: 'unavailable', 404: 'notFound', 409: 'conflict', 429: 'tryLater' };
  return error.code === 'Insufficient points' ? 'noPoints' : keys[error.status] ?? 'error';
}

export type Call = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/** Whether the server answered the last call; the offline note listens. */
export const connection = { offline: false, listeners: new Set<() => void>() };
const setOffline = (offline: boolean) => {
  if (connection.offline === offline) return;
  connection.offline = offline;
  for (const listener of connection.listeners) listener();
};

/** The JSON of an answer, or its ApiError (with Retry-After in seconds when it has one). */
async function answer<T>(response: Response): Promise<T> {
  const data = await response.json().catch(() => ({}));
  const { message, error } = data as { message?: string; error?: string };
  if (!response.ok) throw new ApiError(response.status, message ?? response.statusText, error, Number(response.headers.get('retry-after')) || undefined);
  return data as T;
}

/** UTF-8 safe base64: member names may hold any character, btoa takes Latin-1 only. */
const base64 = (text: string) => btoa(Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join(''));

/** sessionStorage may be missing or refuse (privacy modes): the widget then keeps its state in memory only. */
export const store = {
  get: <T>(key: string): T | null => {
    try {
      return JSON.parse(sessionStorage.getItem(key) ?? 'null') as T | null;
    } catch {
      return null;
    }
  },
  set: (key: string, value: unknown) => {
    try {
      sessionStorage.setItem(key, JSON.stringify(value));
    } catch { /* memory only */ }
  },
};

/** A ticket this much younger than the server's five minutes is sent as it is; an older one is renewed first. */
const TICKET_FRESH_MS = 4 * 60_000;

export function client(config: Config, apiUrl: string, signal: AbortSignal): Call {
  const { publicKey, externalId } = config;
  const key = `punchcard:${publicKey}:${externalId}`;
  let ticket: Ticket = config;
  let session = store.get<{ token: string; expiresAt: string }>(key);
  let renewing: Promise<unknown> | null = null;

  const send = async <T>(method: string, path: string, body: unknown, auth: Record<string, string>): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(`${apiUrl}/api/widget${path}`, {
        method, signal, headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      setOffline(true);
      throw new ApiError(0, 'The Punchcard server cannot be reached.', 'offline');
    }
    setOffline(false);
    const data = await answer<T>(response);
    // The remembered start (offline) follows the balance: the profile, or the member a claim, play or share returns.
    const cached = store.get<InitResponse>(`${key}:init`);
    const member = path === '/profile' ? data as Member : (data as { member?: Partial<Member> }).member;
    if (cached && typeof member?.points === 'number') store.set(`${key}:init`, { ...cached, member: { ...cached.member, ...member } });
    return data;
  };

  /** A call signed with the ticket; init's answer carries the session, which is kept. */
  const signed = async <T>(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> => {
    const { timestamp, signature, member } = ticket;
    const answer = await send<T & { session?: typeof session }>(method, path, body,
      { ...headers, 'X-Widget-Auth': base64(JSON.stringify({ publicKey, externalId, timestamp, signature, ...(member ? { member } : {}) })) });
    if (answer.session) {
      session = answer.session;
      store.set(key, session);
    }
    return answer;
  };

  /** A fresh ticket from the shop, exchanged for a session at once; concurrent calls share one. */
  const renew = () => (renewing ??= (async () => {
    ticket = await config.fetchAuth!();
    await signed('POST', '/init', { origin: location.origin });
  })().finally(() => (renewing = null)));

  const call = async <T>(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<T> => {
    const fresh = Math.abs(Date.now() - ticket.timestamp) < TICKET_FRESH_MS;
    const used = session;
    const live = used && Date.parse(used.expiresAt) > Date.now();
    const bearer = () => send<T>(method, path, body, { ...headers, Authorization: `Bearer ${session!.token}` });
    try {
      // init with a fresh ticket applies the signed profile and starts a new session.
      if (live && !(path === '/init' && fresh)) return await bearer();
      if (fresh || !config.fetchAuth) return await signed<T>(method, path, body, headers);
      await renew();
      return await bearer();
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
      // Calls running side by side share one renewal; a session another call has renewed meanwhile is kept.
      if (session === used) {
        session = null;
        store.set(key, session);
      }
      if (!session) {
        if (!config.fetchAuth) throw error;
        // When the shop cannot sign now either, the shopper reads "session ended" and Retry tries again.
        await renew().catch(() => Promise.reject(error));
      }
      return bearer();
    }
  };

  // Each write carries an Idempotency-Key, kept until the write is answered: the same action tried
  // again (after an answer that never arrived) sends the same key, so the server does it only once.
  const keys = new Map<string, string>();
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    if (method === 'GET' || path === '/init') return call<T>(method, path, body, {});
    const action = `${method} ${path} ${JSON.stringify(body)}`;
    const key = keys.get(action) ?? crypto.getRandomValues(new Uint32Array(4)).join('-');
    keys.set(action, key);
    const answer = await call<T>(method, path, body, { 'Idempotency-Key': key });
    keys.delete(action);
    return answer;
  };
}

/**
 * Starts the widget: init, remembered per project and member so that an unreachable server still
 * shows the last known balance (the offline note says it may be old). Without a remembered one it
 * retries until the server answers: doubling waits up to a minute, at once when the browser is back online.
 */
export async function start(call: Call, config: Config, signal: AbortSignal): Promise<InitResponse> {
  const key = `punchcard:${config.publicKey}:${config.externalId}:init`;
  for (let wait = 2000; ; wait = Math.min(wait * 2, 60_000)) {
    try {
      // One call: the server picks the language from these wishes and answers with its strings.
      const { session: _session, ...init } = await call<InitResponse>('POST', '/init', { origin: location.origin, languages: wishes(config.language) });
      store.set(key, { ...init, welcomeBonus: 0 });
      return init;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 0)) throw error;
      // A start remembered by an older widget, without its words, is no use.
      const cached = store.get<InitResponse>(key);
      if (cached?.strings) return cached;
      await backOff(wait, signal);
    }
  }
}

/** Resolves after `ms` or when the browser says it is online again; rejects when aborted. */
export const backOff = (ms: number, signal: AbortSignal) => new Promise<void>((resolve, reject) => {
  const done = () => {
    clearTimeout(timer);
    removeEventListener('online', done);
    signal.removeEventListener('abort', done);
    if (signal.aborted) reject(new DOMException('Aborted', 'AbortError'));
    else resolve();
  };
  const timer = setTimeout(done, ms);
  addEventListener('online', done);
  signal.addEventListener('abort', done);
});

/** The guest view: the programme from the publishable key alone, for visitors who are not signed in. */
export async function guest(apiUrl: string, config: Config, signal: AbortSignal): Promise<GuestResponse> {
  const query = new URLSearchParams({ publicKey: config.publicKey, languages: wishes(config.language).join(',') });
  return answer<GuestResponse>(await fetch(`${apiUrl}/api/widget/guest?${query}`, { signal }));
}
