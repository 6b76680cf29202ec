// STAND-IN for Punchcard's /api/commerce/* routes, which are built on another branch (issue 26,
// the server side). When they are merged, point the plugin at the real server (the Punchcard
// URL in test/wordpress-plugin.test.ts) and delete this file.
//
// It answers /api/commerce/* exactly as that contract says, doing to the store what the real
// server does (it checks the consumer key with GET /wp-json/wc/v3/webhooks?per_page=1, registers
// three webhooks, and removes them on reconnect and disconnect), and forwards every other request
// (the widget script, /api/v1, /api/widget) unchanged to the real Punchcard server behind it, so
// the plugin talks to one URL as it does in production.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';

export interface StoreSettings {
  pointsPerDollar: number;
  rounding: 'FLOOR' | 'ROUND' | 'CEIL';
  minOrderAmount: number | null;
  excludeShipping: boolean;
  excludeTax: boolean;
  excludeGuest: boolean;
  pointsOnStatus: 'completed' | 'processing';
  showInAccount: boolean;
  productOverrides: Record<string, { multiplier: number }>;
  memberIdentifier: 'customerId' | 'email';
}

interface ConnectedStore {
  id: string; siteUrl: string; organizationId: string; createdAt: string;
  consumerKey: string; consumerSecret: string; webhooks: { id: number; topic: string }[];
}

/** A refusal, answered as the real server words it. */
class StoreError extends Error {
  constructor(readonly error: string, message: string) {
    super(message);
  }
}

/** One call to the store's WooCommerce REST API with HTTP Basic, as the real server makes it. */
async function woo(store: { siteUrl: string; consumerKey: string; consumerSecret: string }, method: string, path: string, body?: unknown): Promise<any> {
  let response: Response;
  try {
    response = await fetch(`${store.siteUrl}/wp-json/wc/v3${path}`, {
      method,
      headers: { authorization: `Basic ${Buffer.from(`${store.consumerKey}:${store.consumerSecret}`).toString('base64')}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new StoreError('store_unreachable', `No WooCommerce REST API answered at ${store.siteUrl}/wp-json/wc/v3: ${(error as Error).message}.`);
  }
  const answer: any = await response.json().catch(() => null);
  if (!response.ok) {
    throw new StoreError('store_request_refused',
      `The store ${store.siteUrl} refused ${method} ${path} (HTTP ${response.status}${answer?.code ? `, ${answer.code}` : ''}).`);
  }
  return answer;
}

export interface RecordedCall { method: string; path: string; authorization: string | undefined; body: any }

export interface FakeCommerce {
  url: string;
  calls: RecordedCall[];
  /** The connected store, or null. */
  store: ConnectedStore | null;
  settings: StoreSettings;
  /** When set, the next connect answers this error without calling the store (a refusal after the plugin made its key). */
  connectError: { status: number; error: string; message: string } | null;
  close(): Promise<void>;
}

const DEFAULT_SETTINGS: StoreSettings = {
  pointsPerDollar: 1, rounding: 'FLOOR', minOrderAmount: null, excludeShipping: true, excludeTax: true, excludeGuest: true,
  pointsOnStatus: 'completed', showInAccount: true, productOverrides: {}, memberIdentifier: 'customerId',
};

const WEBHOOK_TOPICS = ['order.updated', 'customer.created', 'customer.updated'];

export async function startFakeCommerce(punchcard: { url: string; secretKey: string; projectId: string }): Promise<FakeCommerce> {
  const state: Omit<FakeCommerce, 'url' | 'close'> = { calls: [], store: null, settings: { ...DEFAULT_SETTINGS }, connectError: null };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const commerce = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    let body: any = null;
    try {
      body = raw === '' ? null : JSON.parse(raw);
    } catch {
      return send(res, 400, { error: 'Bad Request', message: 'The body is not JSON.' });
    }
    state.calls.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body });
    if (req.headers.authorization !== `Bearer ${punchcard.secretKey}`) return send(res, 401, { error: 'Invalid API key', message: 'Invalid API key.' });
    if (path === '/api/commerce/connect' && req.method === 'POST') {
      const ok = body && typeof body.siteUrl === 'string' && /^ck_/.test(body.consumerKey) && /^cs_/.test(body.consumerSecret);
      if (!ok) return send(res, 400, { error: 'Bad Request', message: '"consumerKey" and "consumerSecret" must be the store\'s REST API key (ck_…, cs_…).' });
      if (state.connectError) {
        const { status, ...error } = state.connectError;
        state.connectError = null;
        return send(res, status, error);
      }
      return void connect(body).then(({ store, created }) => {
        const { consumerKey: _key, consumerSecret: _secret, ...view } = store;
        send(res, created ? 201 : 200, view);
      }, (error) => send(res, 400, { error: error.error ?? 'Bad Request', message: error.message }));
    }
    if (path === '/api/commerce/connect' && req.method === 'DELETE') {
      if (!state.store) return send(res, 404, { error: 'Not Found', message: 'No store is connected.' });
      const store = state.store;
      return void removeWebhooks(store).then(() => {
        state.store = null;
        send(res, 200, { id: store.id, deleted: true });
      });
    }
    const settings = /^\/api\/commerce\/stores\/([^/]+)\/settings$/.exec(path);
    if (settings && (req.method === 'GET' || req.method === 'PATCH')) {
      if (!state.store || decodeURIComponent(settings[1]!) !== state.store.id) return send(res, 404, { error: 'Not Found', message: 'Unknown store.' });
      if (req.method === 'PATCH') {
        if (!body || typeof body !== 'object' || Object.keys(body).some((key) => !(key in DEFAULT_SETTINGS))) {
          return send(res, 400, { error: 'Bad Request', message: 'Unknown setting.' });
        }
        state.settings = { ...state.settings, ...body };
      }
      return send(res, 200, { storeId: state.store.id, settings: state.settings });
    }
    return send(res, 404, { error: 'Not Found', message: `No route ${req.method} ${path}.` });
  };

  /** Removes webhooks, best effort (a store that is down keeps them), as the real server does. */
  const removeWebhooks = async (store: ConnectedStore) => {
    for (const hook of store.webhooks) await woo(store, 'DELETE', `/webhooks/${hook.id}?force=true`).catch(() => undefined);
  };

  const connect = async (body: { siteUrl: string; consumerKey: string; consumerSecret: string; organizationId: string }) => {
    const previous = state.store;
    const id = previous?.id ?? `store_${randomBytes(8).toString('hex')}`;
    const creds = { siteUrl: body.siteUrl.replace(/\/+$/, ''), consumerKey: body.consumerKey, consumerSecret: body.consumerSecret };
    await woo(creds, 'GET', '/webhooks?per_page=1');
    const secret = randomBytes(20).toString('hex');
    const webhooks: { id: number; topic: string }[] = [];
    for (const topic of WEBHOOK_TOPICS) {
      const hook = await woo(creds, 'POST', '/webhooks', { name: `Punchcard ${topic}`, topic, delivery_url: `${fake.url}/api/commerce/webhooks/${id}`, secret,
        status: 'active' });
      webhooks.push({ id: hook.id, topic: hook.topic });
    }
    if (previous) await removeWebhooks(previous);
    state.store = { id, ...creds, organizationId: body.organizationId, createdAt: previous?.createdAt ?? new Date().toISOString(), webhooks };
    return { store: state.store, created: previous === null };
  };

  const forward = (req: IncomingMessage, res: ServerResponse, raw: Buffer) => {
    const target = new URL(req.url ?? '/', punchcard.url);
    const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (error) => send(res, 502, { error: 'Bad Gateway', message: error.message }));
    upstream.end(raw);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if ((req.url ?? '').startsWith('/api/commerce/')) commerce(req, res, raw.toString('utf8'));
      else forward(req, res, raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const fake = Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  });
  return fake;
}
