import { expect } from 'vitest';
import { inviteOperator } from '../../src/domain/operators/operators.ts';
import type { Role } from '../../src/domain/operators/roles.ts';
import { request, type ApiResponse, type RequestOptions } from './http.ts';
import type { TestServer } from './server.ts';

export const ADMIN_PASSWORD = 'correct horse battery staple';

/**
 * A browser of the admin, as far as the server can tell: it keeps the cookies the server sets
 * (session and device), sends the server's own Origin and the session's CSRF token with every
 * change, as the admin's pages do. `origin` and `csrf` can be changed to play another page.
 */
export class AdminBrowser {
  readonly cookies = new Map<string, string>();
  csrf: string | undefined;
  origin: string;

  constructor(readonly server: { url: string }, options: { origin?: string } = {}) {
    this.origin = options.origin ?? server.url;
  }

  #keep(res: ApiResponse): void {
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    if (res.status === 200 && typeof res.body?.csrfToken === 'string') this.csrf = res.body.csrfToken;
  }

  async call(method: string, path: string, options: RequestOptions & { body?: unknown } = {}): Promise<ApiResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const changes = method !== 'GET';
    const headers: Record<string, string> = {
      ...(cookie ? { cookie } : {}),
      ...(changes && this.origin ? { origin: this.origin } : {}),
      ...(changes && this.csrf ? { 'x-csrf-token': this.csrf } : {}),
      ...options.headers,
    };
    const res = await request(this.server.url, method, path.startsWith('/') ? path : `/api/admin/${path}`, { ...options, headers });
    this.#keep(res);
    return res;
  }

  get = (path: string, options?: RequestOptions) => this.call('GET', path, options);
  post = (path: string, body?: unknown, options?: RequestOptions) => this.call('POST', path, { body, ...options });
  patch = (path: string, body?: unknown, options?: RequestOptions) => this.call('PATCH', path, { body, ...options });
  delete = (path: string, body?: unknown, options?: RequestOptions) => this.call('DELETE', path, { ...(body === undefined ? {} : { body }), ...options });

  /** Signs in (expects success) and returns the Session answer. */
  async signIn(email: string, password = ADMIN_PASSWORD, totpCode?: string): Promise<any> {
    const res = await this.post('session', { email, password, ...(totpCode ? { totpCode } : {}) });
    expect(res.status, res.text).toBe(200);
    return res.body;
  }
}

/** Invites `email` (the domain call `punchcard admin invite` makes) and accepts the link in `browser`: a signed-in operator. */
export async function makeOperator(server: TestServer, email: string, role: Role, options: { projectId?: string; browser?: AdminBrowser } = {}):
  Promise<AdminBrowser> {
  const browser = options.browser ?? new AdminBrowser(server);
  const { token } = inviteOperator(server.ctx.db, { email, role, projectId: options.projectId ?? server.projectId }, server.clock.now());
  if (token !== null) {
    const accepted = await browser.post(`invites/${token}`, { password: ADMIN_PASSWORD, name: email.split('@')[0] });
    expect(accepted.status, accepted.text).toBe(200);
  } else await browser.signIn(email);
  return browser;
}

/** The project-scoped admin path: `/api/admin/projects/<id>/<rest>`. */
export const projectPath = (projectId: string, rest: string) => `/api/admin/projects/${projectId}/${rest}`;
