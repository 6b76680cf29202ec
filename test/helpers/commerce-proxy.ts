// A recording proxy in front of a real Punchcard server, for the WordPress plugin's test. Every
// request the plugin makes goes through it and is recorded (method, path, Authorization, body,
// status, answer) when it is for /api/commerce or /api/v1, then forwarded unchanged, so the test
// can check what the plugin sent as well as what it shows.
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

export async function startCommerceProxy(punchcard: { url: string }): Promise<CommerceProxy> {
  const calls: RecordedCall[] = [];

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
    const answer = await forward(req, raw);
    if (path.startsWith('/api/commerce/') || path.startsWith('/api/v1/')) {
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
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    calls,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
