// The app's only way to the server: /api/admin, with the session cookie the browser keeps (the app
// never sees it), the CSRF token from the session answer on every change, and one Idempotency-Key
// per submission. A 401 on any call means the session ended: the app goes to sign-in.
import { words } from './i18n/words.ts';

/** An `{error, message}` answer (status 0: the server could not be reached). `body` keeps its other fields (`totpRequired`). */
export class ApiError extends Error {
  constructor(readonly status: number, readonly error: string, message: string, readonly body: Record<string, unknown> = {}, readonly retryAfter?: number) {
    super(message);
  }
}

export const API = '/api/admin';

let csrfToken: string | null = null;
/** Kept from the session answer (sign-in, invite, GET /session); every non-GET request sends it. */
export const setCsrfToken = (token: string | null) => {
  csrfToken = token;
};

let signedOut: () => void = () => {};
/** What the app does when a call answers 401: forget the session and show sign-in. */
export const onSignedOut = (handler: () => void) => {
  signedOut = handler;
};

/**
 * Writes carry an Idempotency-Key kept until the server answers: the same change sent again
 * meanwhile (a double click, a second Enter) or after the network failed carries the same key, so
 * the server makes it once.
 */
const pendingKeys = new Map<string, string>();
const newKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');

export interface CallOptions {
  /** Signing in answers 401 for a wrong password: that is the form's error, not an ended session. */
  signingIn?: boolean;
}

export async function api<T>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  // Signing in is not a change to replay: a second try must be checked again.
  const write = method !== 'GET' && !options.signingIn;
  const action = `${method} ${path} ${JSON.stringify(body)}`;
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  if (write) {
    if (!pendingKeys.has(action)) pendingKeys.set(action, newKey());
    headers['idempotency-key'] = pendingKeys.get(action)!;
  }
  let response: Response;
  try {
    response = await fetch(`${API}${path}`, { method, headers, credentials: 'same-origin', ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  } catch {
    // Kept: the change may have been made, and trying again must not make it twice.
    throw new ApiError(0, 'Offline', words.errors.offline);
  }
  if (write) pendingKeys.delete(action);
  const data = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.ok) return data as T;
  if (response.status === 401 && !options.signingIn) signedOut();
  const retryAfter = Number(response.headers.get('retry-after')) || (typeof data.retryAfterSeconds === 'number' ? data.retryAfterSeconds : undefined);
  const message = typeof data.message === 'string' ? data.message : `${response.status} ${response.statusText}`;
  throw new ApiError(response.status, typeof data.error === 'string' ? data.error : response.statusText, message, data, retryAfter);
}

/** A query string from the values set (empty ones left out), with its "?". */
export function query(values: Record<string, string | number | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== null && value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The address of a list's CSV (every row the filters match), for a plain download link: the cookie goes with it. */
export const csvHref = (path: string, values: Record<string, string | number | null | undefined> = {}) =>
  `${API}${path}${query({ ...values, limit: null, offset: null, format: 'csv' })}`;
