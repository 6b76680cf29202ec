// A recording proxy in front of a real Punchcard server, for the WordPress plugin's test. Every
// request the plugin makes goes through it and is recorded (method, path, Authorization, body,
// status, answer), then forwarded unchanged to the real server.
//
// STAND-IN: until the server's /api/commerce/* routes are merged (issue 26, the server side, on
// another branch), it answers those itself, exactly as their contract says, doing to the store
// what the real server does: it checks the consumer key with GET /wp-json/wc/v3/webhooks?per_page=1,
// registers three webhooks with POST /wp-json/wc/v3/webhooks, and removes them (DELETE) on
// reconnect and disconnect. Once those routes are merged, start it with `standIn: false` so they
// are forwarded too (verified against that branch), and delete the stand-in half of this file.
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface RecordedCall { method: string; path: string; authorization: string | undefined; body: any; status: number; answer: any }

export interface CommerceProxy {
  url: string;
  calls: RecordedCall[];
  close(): Promise<void>;
}

const parse = (text: string): any => {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return text;
  }
};

export async function startCommerceProxy(punchcard: { url: string; secretKey: string }, options: { standIn?: boolean } = {}): Promise<CommerceProxy> {
  const calls: RecordedCall[] = [];
  let url = '';
  const standIn = options.standIn ?? true ? createStandIn(punchcard.secretKey, () => url) : null;

  const forward = (req: IncomingMessage, raw: Buffer) => new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve) => {
      const target = new URL(req.url ?? '/', punchcard.url);
      const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
      });
      upstream.on('error', (error) => resolve({ status: 502, headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ error: 'Bad Gateway', message: error.message })) }));
      upstream.end(raw);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const commerce = path.startsWith('/api/commerce/');
    const answer = commerce && standIn
      ? await standIn(req.method ?? 'GET', path, req.headers.authorization, raw.toString('utf8'))
      : await forward(req, raw);
    if (commerce || path.startsWith('/api/v1/')) {
      calls.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body: parse(raw.toString('utf8')), status: answer.status,
        answer: parse(answer.body.toString('utf8')) });
    }
    // The body is whole here: drop the upstream's framing headers and send our own length.
    const { 'transfer-encoding': _chunked, 'content-length': _length, connection: _connection, ...headers } = answer.headers;
    res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) }).end(answer.body);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    calls,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

// ---- The stand-in for /api/commerce/* (delete once the real routes are merged) ----

const DEFAULT_SETTINGS = {
  pointsPerDollar: 1, rounding: 'FLOOR', minOrderAmount: null, excludeShipping: true, excludeTax: true, excludeGuest: true,
  pointsOnStatus: 'completed', showInAccount: true, productOverrides: {}, memberIdentifier: 'customerId',
};

const WEBHOOK_TOPICS = ['order.updated', 'customer.created', 'customer.updated'];

interface Creds { siteUrl: string; consumerKey: string; consumerSecret: string }
interface ConnectedStore extends Creds { id: string; organizationId: string; createdAt: string; webhooks: { id: number; topic: string }[] }

/** A refusal, worded as the real server words it. */
class StoreError extends Error {
  constructor(readonly error: string, message: string) {
    super(message);
  }
}

/** One call to the store's WooCommerce REST API with HTTP Basic, as the real server makes it. */
async function woo(store: Creds, method: string, path: string, body?: unknown): Promise<any> {
  let response: Response;
  try {
    response = await fetch(`${store.siteUrl}/wp-json/wc/v3${path}`, {
      method,
      headers: { authorization: `Basic ${Buffer.from(`${store.consumerKey}:${store.consumerSecret}`).toString('base64')}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new StoreError('store_unreachable', `The store ${store.siteUrl} could not be reached: ${(error as Error).message}.`);
  }
  const answer: any = await response.json().catch(() => null);
  if (response.status === 401 || response.status === 403) {
    throw new StoreError('store_credentials_rejected', `The store ${store.siteUrl} refused the consumer key and secret (HTTP ${response.status}); create a key with Read/Write permissions in WooCommerce → Settings → Advanced → REST API.`);
  }
  if (!response.ok) throw new StoreError('store_request_refused', `The store ${store.siteUrl} refused ${method} ${path} (HTTP ${response.status}).`);
  return answer;
}

type Answer = { status: number; headers: Record<string, string>; body: Buffer };

function createStandIn(secretKey: string, ownUrl: () => string) {
  let store: ConnectedStore | null = null;
  let settings: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  const json = (status: number, body: unknown): Answer => ({ status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) });

  const removeWebhooks = async (from: ConnectedStore) => {
    for (const hook of from.webhooks) await woo(from, 'DELETE', `/webhooks/${hook.id}?force=true`).catch(() => undefined);
  };

  const connect = async (body: Creds & { organizationId: string }): Promise<Answer> => {
    const previous = store;
    const id = previous?.id ?? `store_${randomBytes(8).toString('hex')}`;
    const creds = { siteUrl: body.siteUrl.replace(/\/+$/, ''), consumerKey: body.consumerKey, consumerSecret: body.consumerSecret };
    try {
      await woo(creds, 'GET', '/webhooks?per_page=1');
      const secret = randomBytes(20).toString('hex');
      const webhooks: { id: number; topic: string }[] = [];
      try {
        for (const topic of WEBHOOK_TOPICS) {
          const hook = await woo(creds, 'POST', '/webhooks', { name: `Punchcard ${topic}`, topic, delivery_url: `${ownUrl()}/api/commerce/webhooks/${id}`, secret,
            status: 'active' });
          webhooks.push({ id: hook.id, topic: hook.topic });
        }
      } catch (error) {
        await removeWebhooks({ ...creds, id, organizationId: '', createdAt: '', webhooks });
        throw error;
      }
      if (previous) await removeWebhooks(previous);
      store = { id, ...creds, organizationId: body.organizationId, createdAt: previous?.createdAt ?? new Date().toISOString(), webhooks };
    } catch (error) {
      return json(400, { error: (error as StoreError).error ?? 'Bad Request', message: (error as Error).message });
    }
    const { consumerKey: _key, consumerSecret: _secret, ...view } = store;
    return json(previous ? 200 : 201, view);
  };

  return async (method: string, path: string, authorization: string | undefined, raw: string): Promise<Answer> => {
    const body = parse(raw);
    if (authorization !== `Bearer ${secretKey}`) return json(401, { error: 'Invalid API key', message: 'Invalid API key.' });
    if (path === '/api/commerce/connect' && method === 'POST') {
      const ok = body && typeof body.siteUrl === 'string' && /^ck_/.test(body.consumerKey) && /^cs_/.test(body.consumerSecret)
        && typeof body.organizationId === 'string';
      if (!ok) return json(400, { error: 'Bad Request', message: '"consumerKey" and "consumerSecret" must be the store\'s REST API key (ck_…, cs_…).' });
      return connect(body);
    }
    if (path === '/api/commerce/connect' && method === 'DELETE') {
      if (!store) return json(404, { error: 'Not Found', message: 'No store is connected.' });
      const gone = store;
      await removeWebhooks(gone);
      store = null;
      settings = { ...DEFAULT_SETTINGS };
      return json(200, { id: gone.id, deleted: true });
    }
    const match = /^\/api\/commerce\/stores\/([^/]+)\/settings$/.exec(path);
    if (match && (method === 'GET' || method === 'PATCH')) {
      if (!store || decodeURIComponent(match[1]!) !== store.id) return json(404, { error: 'Not Found', message: 'Unknown store.' });
      if (method === 'PATCH') {
        if (!body || typeof body !== 'object' || Object.keys(body).some((key) => !(key in DEFAULT_SETTINGS))) {
          return json(400, { error: 'Bad Request', message: 'Unknown setting.' });
        }
        if ('pointsPerDollar' in body && !(typeof body.pointsPerDollar === 'number' && body.pointsPerDollar >= 0 && body.pointsPerDollar <= 10_000)) {
          return json(400, { error: 'Bad Request', message: '"pointsPerDollar" must be at least 0' });
        }
        settings = { ...settings, ...body };
      }
      return json(200, { storeId: store.id, settings });
    }
    return json(404, { error: 'Not Found', message: `No route ${method} ${path}.` });
  };
}
