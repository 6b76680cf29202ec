import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import type { TestServer } from './server.ts';
import { client } from './http.ts';

export interface WidgetSigner {
  publicKey: string;
  widgetSecret: string;
}

/**
 * Builds X-Widget-Auth the way a shop's server would, from the documented recipe alone:
 * lowercase hex HMAC-SHA256 of "publicKey:externalId:timestamp", or with profile fields
 * (`member`, sent as its JSON text) of "publicKey:externalId:timestamp:member", then base64 of the
 * JSON claims. `unsignedMember` is sent beside the signature, as pages did before it covered it.
 */
export function widgetHeader(
  signer: WidgetSigner,
  externalId: string,
  timestamp: number,
  extra: { member?: unknown; unsignedMember?: unknown; signature?: string } = {},
): string {
  const member = extra.member === undefined ? undefined : typeof extra.member === 'string' ? extra.member : JSON.stringify(extra.member);
  const message = `${signer.publicKey}:${externalId}:${timestamp}${member === undefined ? '' : `:${member}`}`;
  const signature = extra.signature ?? createHmac('sha256', signer.widgetSecret).update(message).digest('hex');
  const sent = member ?? extra.unsignedMember;
  const claims = { publicKey: signer.publicKey, externalId, timestamp, signature, ...(sent === undefined ? {} : { member: sent }) };
  return Buffer.from(JSON.stringify(claims)).toString('base64');
}

/** A client for one member's widget: every call carries a fresh X-Widget-Auth. */
export function widgetClient(baseUrl: string, signer: WidgetSigner, externalId: string, now: () => Date, member?: unknown) {
  const api = client(baseUrl);
  const auth = (headers: Record<string, string> = {}) => ({
    headers: { 'x-widget-auth': widgetHeader(signer, externalId, now().getTime(), { member }), ...headers },
  });
  return {
    get: (path: string, headers?: Record<string, string>) => api.get(`/api/widget${path}`, auth(headers)),
    post: (path: string, body?: unknown, headers?: Record<string, string>) => api.post(`/api/widget${path}`, body, auth(headers)),
    patch: (path: string, body?: unknown, headers?: Record<string, string>) => api.patch(`/api/widget${path}`, body, auth(headers)),
  };
}

/**
 * A shopper's widget client for a test server: init done (so the member exists), and `points`
 * awarded through the server API when given. Also `createItem`, a catalog item through that API.
 */
export function shopperHelpers(server: () => TestServer, signer: () => WidgetSigner) {
  return {
    async shopper(externalId: string, points = 0, member?: unknown) {
      const w = widgetClient(server().url, signer(), externalId, server().clock.now, member);
      expect((await w.post('/init')).status).toBe(200);
      if (points > 0) expect((await server().api.post(`/api/v1/members/${externalId}/points`, { amount: points })).status).toBe(200);
      return w;
    },
    async create(kind: string, body: Record<string, unknown>) {
      const res = await server().api.post(`/api/v1/${kind}`, body);
      expect(res.status, res.text).toBe(201);
      return res.body.id as string;
    },
  };
}
