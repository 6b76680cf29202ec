// The widget's only way to the server: every call signed with X-Widget-Auth, all aborted on destroy.

export interface Config {
  publicKey: string;
  externalId: string;
  timestamp: number;
  signature: string;
  apiUrl?: string;
  theme?: Partial<Theme> & { position?: 'left' | 'right' };
  language?: string;
  displayMode?: 'floating' | 'custom';
  /** Profile fields as the JSON text the shop's server signed; an object is unsigned and ignored by the server. */
  member?: string | Record<string, unknown>;
  onReady?: () => void;
  onError?: (error: Error) => void;
  onWelcomeBonus?: (points: number) => void;
}

export interface Theme {
  primaryColor: string;
  textColor: string;
  backgroundColor: string;
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

export interface InitResponse {
  project: {
    name: string;
    widgetSettings: {
      languages: string[];
      defaultLanguage: string;
      features: Record<string, boolean>;
      displayMode: 'floating' | 'custom';
      position: 'left' | 'right';
      theme: Theme;
    };
  };
  member: Member;
  activeMultipliers: { name: string; multiplier: number; endsAt: string }[];
  welcomeBonus: number;
}

/** An error answer of the widget API, with its status (401 signature, 403 off or origin_not_allowed, 404 absent, 429 limits) and code. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly code?: string) {
    super(message);
  }
}

export type Call = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/** UTF-8 safe base64: member names may hold any character, btoa takes Latin-1 only. */
const base64 = (text: string) => btoa(Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join(''));

export function client(config: Config, apiUrl: string, signal: AbortSignal): Call {
  const { publicKey, externalId, timestamp, signature, member } = config;
  const auth = base64(JSON.stringify({ publicKey, externalId, timestamp, signature, ...(member ? { member } : {}) }));
  return async (method, path, body) => {
    const response = await fetch(`${apiUrl}/api/widget${path}`, {
      method,
      signal,
      headers: { 'X-Widget-Auth': auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const data = await response.json().catch(() => ({}));
    const { message, error } = data as { message?: string; error?: string };
    if (!response.ok) throw new ApiError(response.status, message ?? response.statusText, error);
    return data;
  };
}
