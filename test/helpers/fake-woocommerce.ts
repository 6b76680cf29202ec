import { createHmac } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One REST call the fake store received. */
export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Whether Basic auth carried the store's key and secret. */
  authorized: boolean;
  body: any;
}

export interface FakeWebhook {
  id: number;
  name: string;
  status: string;
  topic: string;
  delivery_url: string;
  secret: string;
}

export interface FakeCoupon {
  id: number;
  code: string;
  discount_type: string;
  amount: string;
  usage_limit: number | null;
  usage_limit_per_user: number | null;
  email_restrictions: string[];
  description: string;
}

export interface Delivered {
  status: number;
  body: any;
}

/**
 * A WooCommerce store on 127.0.0.1: the REST routes Punchcard calls (`/wp-json/wc/v3/webhooks`,
 * `/coupons`) behind HTTP Basic auth with one consumer key and secret, every call recorded, a
 * ping to each new webhook's delivery URL as WooCommerce sends one, and deliveries signed the way
 * WooCommerce signs them (base64 HMAC-SHA256 of the body with the webhook's secret).
 */
export class FakeWooCommerce {
  readonly consumerKey = 'ck_0123456789abcdef0123456789abcdef01234567';
  readonly consumerSecret = 'cs_76543210fedcba9876543210fedcba9876543210';
  readonly calls: RecordedCall[] = [];
  readonly webhooks = new Map<number, FakeWebhook>();
  readonly coupons = new Map<number, FakeCoupon>();
  /** Ping answers our server gave, by webhook id. */
  readonly pings = new Map<number, number>();
  /** While true every connection is dropped at once, as a store that is down. */
  down = false;
  /** When set, every REST call is answered 301 to this address (a site that moved to https or www). */
  redirectTo: string | null = null;
  /** When set, a new coupon is answered with this code instead of the one asked for (a store plugin that picks codes). */
  answerCode: string | null = null;
  /** The bench's slow store: every REST answer waits this long (tests leave it at 0). */
  latencyMs = 0;
  #nextId = 100;
  #deliveries = 0;
  #server: Server;
  readonly #sockets = new Set<Socket>();
  url = '';

  constructor() {
    this.#server = createServer((req, res) => {
      if (this.down) {
        req.socket.destroy();
        return;
      }
      void this.#handle(req, res);
    });
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Drops the connections kept alive, so `down` applies to the next call at once. */
  goDown(): void {
    this.down = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  callsTo(method: string, path: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method && call.path === path);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    const expected = `Basic ${Buffer.from(`${this.consumerKey}:${this.consumerSecret}`).toString('base64')}`;
    const call: RecordedCall = {
      method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), authorized: req.headers.authorization === expected,
      body: text ? JSON.parse(text) : null,
    };
    this.calls.push(call);
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(body));
    };
    const error = (status: number, code: string, message: string) => send(status, { code, message, data: { status } });
    if (this.redirectTo !== null) {
      res.writeHead(301, { location: `${this.redirectTo}${url.pathname}${url.search}` });
      res.end();
      return;
    }
    if (!url.pathname.startsWith('/wp-json/wc/v3/')) return error(404, 'rest_no_route', 'No route was found matching the URL and request method.');
    if (!call.authorized) return error(401, 'woocommerce_rest_cannot_view', 'Sorry, you cannot list resources.');
    const route = `${call.method} ${url.pathname.slice('/wp-json/wc/v3'.length).replace(/\/\d+$/, '/:id')}`;
    const id = Number(/\/(\d+)$/.exec(url.pathname)?.[1]);
    switch (route) {
      case 'GET /webhooks': return send(200, [...this.webhooks.values()]);
      case 'POST /webhooks': {
        const hook: FakeWebhook = {
          id: this.#nextId++, name: call.body.name, status: call.body.status ?? 'active', topic: call.body.topic,
          delivery_url: call.body.delivery_url, secret: call.body.secret,
        };
        this.webhooks.set(hook.id, hook);
        // WooCommerce pings a new webhook's delivery URL before it answers.
        this.pings.set(hook.id, (await this.#post(hook.delivery_url, `webhook_id=${hook.id}`, { 'content-type': 'application/x-www-form-urlencoded' })).status);
        return send(201, { ...hook, resource: hook.topic.split('.')[0], event: hook.topic.split('.')[1], hooks: [], api_version: 'wp_api_v3',
          date_created: '2026-01-15T12:00:00', date_created_gmt: '2026-01-15T12:00:00' });
      }
      case 'DELETE /webhooks/:id': {
        const hook = this.webhooks.get(id);
        if (!hook) return error(404, 'woocommerce_rest_shop_webhook_invalid_id', 'Invalid ID.');
        this.webhooks.delete(id);
        return send(200, hook);
      }
      case 'GET /coupons': return send(200, [...this.coupons.values()].filter((c) => !call.query.code || c.code === call.query.code.toLowerCase()));
      case 'POST /coupons': {
        const code = String(call.body.code).toLowerCase(); // WooCommerce stores codes in lower case
        if ([...this.coupons.values()].some((c) => c.code === code)) return error(400, 'woocommerce_rest_coupon_code_already_exists', 'The coupon code already exists');
        const coupon: FakeCoupon = {
          id: this.#nextId++, code, discount_type: call.body.discount_type, amount: call.body.amount, usage_limit: call.body.usage_limit ?? null,
          usage_limit_per_user: call.body.usage_limit_per_user ?? null, email_restrictions: call.body.email_restrictions ?? [], description: call.body.description ?? '',
        };
        this.coupons.set(coupon.id, coupon);
        return send(201, this.answerCode === null ? coupon : { ...coupon, code: this.answerCode });
      }
      default: return error(404, 'rest_no_route', 'No route was found matching the URL and request method.');
    }
  }

  #post(target: string, body: string, headers: Record<string, string>): Promise<Delivered> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(target, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)' } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Signs as WooCommerce does: base64 of HMAC-SHA256 over the exact body, keyed with the webhook's secret. */
  static sign(body: string, secret: string): string {
    return createHmac('sha256', secret).update(body).digest('base64');
  }

  /**
   * Sends `payload` to every active webhook of `topic`, as WooCommerce delivers: JSON body, the
   * X-WC-Webhook-* headers, a fresh delivery id each time. `tamper` changes the body after signing.
   */
  async deliver(topic: string, payload: unknown, options: { tamper?: (body: string) => string; signature?: string } = {}): Promise<Delivered[]> {
    const hooks = [...this.webhooks.values()].filter((hook) => hook.topic === topic && hook.status === 'active');
    if (hooks.length === 0) throw new Error(`The fake store has no active webhook for ${topic}`);
    const results: Delivered[] = [];
    for (const hook of hooks) {
      const body = JSON.stringify(payload);
      const [resource, event] = topic.split('.') as [string, string];
      results.push(await this.#post(hook.delivery_url, options.tamper ? options.tamper(body) : body, {
        'content-type': 'application/json',
        'x-wc-webhook-source': `${this.url}/`,
        'x-wc-webhook-topic': topic,
        'x-wc-webhook-resource': resource,
        'x-wc-webhook-event': event,
        'x-wc-webhook-signature': options.signature ?? FakeWooCommerce.sign(body, hook.secret),
        'x-wc-webhook-id': String(hook.id),
        'x-wc-webhook-delivery-id': String(++this.#deliveries),
      }));
    }
    return results;
  }

  /** The one delivery of `topic` (the usual case: one webhook per topic). */
  async deliverOne(topic: string, payload: unknown, options?: { tamper?: (body: string) => string; signature?: string }): Promise<Delivered> {
    const [result] = await this.deliver(topic, payload, options);
    return result!;
  }
}

export async function startFakeWooCommerce(): Promise<FakeWooCommerce> {
  return new FakeWooCommerce().start();
}

/** A fake store connected to the server's default project (POST /api/commerce/connect); resolves with the store and its id. */
export async function connectFakeStore(server: { api: { post: (path: string, body: unknown) => Promise<{ status: number; text: string; body: any }> } }):
  Promise<{ store: FakeWooCommerce; storeId: string }> {
  const store = await startFakeWooCommerce();
  const connected = await server.api.post('/api/commerce/connect', {
    siteUrl: store.url, consumerKey: store.consumerKey, consumerSecret: store.consumerSecret, organizationId: 'org_1',
  });
  if (connected.status !== 201) throw new Error(`connecting the fake store failed: ${connected.text}`);
  return { store, storeId: connected.body.id };
}

export interface OrderLine {
  productId: number;
  variationId?: number;
  quantity: number;
  /** Unit price before tax, as text: "25.00". */
  price: string;
  /** The line's tax, as text. */
  tax: string;
}

export interface OrderSpec {
  id: number;
  status: string;
  /** 0 for a guest. */
  customerId?: number;
  email?: string;
  lines?: OrderLine[];
  shipping?: string;
  shippingTax?: string;
  /** Refunds so far, newest first as WooCommerce lists them: totals as positive text ("19.80"). */
  refunds?: { id: number; amount: string }[];
  /** date_modified_gmt: the later state has the later time. */
  modified: string;
}

const cents = (text: string) => Math.round(Number(text) * 100);
const money = (value: number) => (value / 100).toFixed(2);

/**
 * A WooCommerce REST v3 order as a webhook delivers it: every field a v3 order has, money as
 * decimal strings, totals computed from the lines, shipping and tax as WooCommerce computes them.
 */
export function wooOrder(spec: OrderSpec): Record<string, unknown> {
  const lines = spec.lines ?? [
    { productId: 11, quantity: 2, price: '25.00', tax: '5.00' },
    { productId: 12, quantity: 1, price: '30.00', tax: '3.00' },
  ];
  const shipping = cents(spec.shipping ?? '10.00');
  const shippingTax = cents(spec.shippingTax ?? '1.00');
  const items = lines.map((line, index) => {
    const total = cents(line.price) * line.quantity;
    return {
      id: 1000 + index, name: `Product ${line.productId}`, product_id: line.productId, variation_id: line.variationId ?? 0, quantity: line.quantity,
      tax_class: '', subtotal: money(total), subtotal_tax: line.tax, total: money(total), total_tax: line.tax,
      taxes: [{ id: 1, total: line.tax, subtotal: line.tax }], meta_data: [], sku: `SKU-${line.productId}`, price: Number(line.price),
      image: { id: '', src: '' }, parent_name: null,
    };
  });
  const itemsTotal = items.reduce((sum, item) => sum + cents(item.total), 0);
  const cartTax = lines.reduce((sum, line) => sum + cents(line.tax), 0);
  const total = itemsTotal + cartTax + shipping + shippingTax;
  const customerId = spec.customerId ?? 7;
  const email = spec.email ?? `customer${customerId}@shop.example`;
  const address = { first_name: 'Ada', last_name: 'Lovelace', company: '', address_1: '12 Analytical Row', address_2: '', city: 'London', state: '', postcode: 'N1 9GU', country: 'GB' };
  return {
    id: spec.id, parent_id: 0, status: spec.status, currency: 'EUR', version: '9.4.2', prices_include_tax: false,
    date_created: '2026-01-15T11:00:00', date_modified: spec.modified, discount_total: '0.00', discount_tax: '0.00',
    shipping_total: money(shipping), shipping_tax: money(shippingTax), cart_tax: money(cartTax), total: money(total), total_tax: money(cartTax + shippingTax),
    customer_id: customerId, order_key: `wc_order_${spec.id}abc`,
    billing: { ...address, email, phone: '+44 20 7946 0000' }, shipping: { ...address, phone: '' },
    payment_method: 'stripe', payment_method_title: 'Credit card', transaction_id: `pi_${spec.id}`, customer_ip_address: '203.0.113.9',
    customer_user_agent: 'Mozilla/5.0', created_via: 'checkout', customer_note: '', date_completed: spec.status === 'completed' ? spec.modified : null,
    date_paid: '2026-01-15T11:00:05', cart_hash: 'a1b2c3', number: String(spec.id), meta_data: [], line_items: items,
    tax_lines: [{ id: 1, rate_code: 'GB-VAT-1', rate_id: 1, label: 'VAT', compound: false, tax_total: money(cartTax), shipping_tax_total: money(shippingTax), rate_percent: 10, meta_data: [] }],
    shipping_lines: [{ id: 2, method_title: 'Flat rate', method_id: 'flat_rate', instance_id: '1', total: money(shipping), total_tax: money(shippingTax), taxes: [], meta_data: [] }],
    fee_lines: [], coupon_lines: [],
    refunds: (spec.refunds ?? []).map((refund) => ({ id: refund.id, reason: 'Customer request', total: `-${refund.amount}` })),
    payment_url: `https://shop.example/checkout/order-pay/${spec.id}/`, is_editable: false, needs_payment: false, needs_processing: true,
    date_created_gmt: '2026-01-15T11:00:00', date_modified_gmt: spec.modified, date_completed_gmt: spec.status === 'completed' ? spec.modified : null,
    date_paid_gmt: '2026-01-15T11:00:05', currency_symbol: '€', _links: { self: [{ href: `https://shop.example/wp-json/wc/v3/orders/${spec.id}` }] },
  };
}

/** A WooCommerce REST v3 customer as customer.created / customer.updated deliver it. */
export function wooCustomer(spec: { id: number; email: string; firstName: string; lastName: string }): Record<string, unknown> {
  const address = { first_name: spec.firstName, last_name: spec.lastName, company: '', address_1: '', address_2: '', city: '', postcode: '', country: '', state: '' };
  return {
    id: spec.id, date_created: '2026-01-15T10:00:00', date_created_gmt: '2026-01-15T10:00:00', date_modified: '2026-01-15T10:00:00',
    date_modified_gmt: '2026-01-15T10:00:00', email: spec.email, first_name: spec.firstName, last_name: spec.lastName, role: 'customer',
    username: spec.email.split('@')[0], billing: { ...address, email: spec.email, phone: '' }, shipping: { ...address, phone: '' },
    is_paying_customer: false, avatar_url: 'https://secure.gravatar.com/avatar/0?s=96&d=mm&r=g', meta_data: [],
  };
}
