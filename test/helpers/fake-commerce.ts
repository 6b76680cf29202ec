// STAND-IN for Punchcard's /api/commerce/* routes, which are built on another branch (issue 26,
// the server side). When they are merged, point the plugin at the real server (the Punchcard
// URL in test/wordpress-plugin.test.ts) and delete this file.
//
// It answers /api/commerce/* exactly as that contract says, and forwards every other request
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
  memberIdentifier: 'id' | 'email';
}

export interface RecordedCall { method: string; path: string; authorization: string | undefined; body: any }

export interface FakeCommerce {
  url: string;
  calls: RecordedCall[];
  /** The connected store, or null. */
  store: { id: string; siteUrl: string; organizationId: string; createdAt: string } | null;
  settings: StoreSettings;
  /** When set, the next connect answers this error (as the real server does for refused store credentials). */
  connectError: { status: number; error: string; message: string } | null;
  close(): Promise<void>;
}

const DEFAULT_SETTINGS: StoreSettings = {
  pointsPerDollar: 1, rounding: 'FLOOR', minOrderAmount: null, excludeShipping: true, excludeTax: true, excludeGuest: true,
  pointsOnStatus: 'completed', showInAccount: true, productOverrides: {}, memberIdentifier: 'id',
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
      if (state.connectError) {
        const { status, ...error } = state.connectError;
        state.connectError = null;
        return send(res, status, error);
      }
      const ok = body && typeof body.siteUrl === 'string' && /^ck_/.test(body.consumerKey) && /^cs_/.test(body.consumerSecret);
      if (!ok) return send(res, 400, { error: 'Bad Request', message: '"consumerKey" and "consumerSecret" must be the store\'s REST API key (ck_…, cs_…).' });
      if (body.organizationId !== punchcard.projectId) return send(res, 403, { error: 'Forbidden', message: 'The organization is not the key\'s project.' });
      const reconnect = state.store !== null;
      state.store = { id: state.store?.id ?? `store_${randomBytes(8).toString('hex')}`, siteUrl: body.siteUrl, organizationId: body.organizationId,
        createdAt: state.store?.createdAt ?? new Date().toISOString() };
      return send(res, reconnect ? 200 : 201, { ...state.store, webhooks: WEBHOOK_TOPICS.map((topic, i) => ({ id: i + 1, topic })) });
    }
    if (path === '/api/commerce/connect' && req.method === 'DELETE') {
      if (!state.store) return send(res, 404, { error: 'Not Found', message: 'No store is connected.' });
      const { id } = state.store;
      state.store = null;
      return send(res, 200, { id, deleted: true });
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
