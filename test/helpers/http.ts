import { Agent, request as httpRequest } from 'node:http';
import { contractEnabled, contractProblem } from './contract.ts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  raw?: string;
  headers?: Record<string, string>;
  key?: string;
  /** Skip the contract check: for tests that send what no client would and look only at the status. */
  unchecked?: boolean;
}

/** Keep-alive connections, bounded so a load test queues instead of opening thousands of sockets. */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** A plain node:http client, so tests see exactly what went over the wire. */
export function request<T = any>(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = {
    ...(payload !== undefined && options.raw === undefined ? { 'content-type': 'application/json' } : {}),
    ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
    ...options.headers,
  };
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, baseUrl), { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: leave the text
        }
        const status = res.statusCode ?? 0;
        // Every answer a test receives is checked against the OpenAPI document (helpers/contract.ts).
        const problem = contractEnabled && !options.unchecked ? contractProblem(method, new URL(path, baseUrl), status, body, res.headers['content-type']) : null;
        if (problem) reject(new Error(`Contract: ${problem}`));
        else resolve({ status, headers: res.headers, body, text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** A client bound to one server and, optionally, one key. */
export function client(baseUrl: string, key?: string) {
  const call = <T = any>(method: string, path: string, options: RequestOptions = {}) =>
    request<T>(baseUrl, method, path, { ...(key ? { key } : {}), ...options });
  return {
    get: <T = any>(path: string, options?: RequestOptions) => call<T>('GET', path, options),
    post: <T = any>(path: string, body?: unknown, options?: RequestOptions) => call<T>('POST', path, { body, ...options }),
    patch: <T = any>(path: string, body?: unknown, options?: RequestOptions) => call<T>('PATCH', path, { body, ...options }),
    delete: <T = any>(path: string, options?: RequestOptions) => call<T>('DELETE', path, options),
    call,
  };
}
