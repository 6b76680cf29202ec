import { createServer, type IncomingMessage, type Server } from 'node:http';

/** A user the fake Discord knows, and the authorization code that logs them in. */
export interface FakeUser {
  code: string;
  id: string;
  username: string;
}

export interface TokenRequest {
  contentType: string | undefined;
  authorization: string | undefined;
  form: Record<string, string>;
}

/**
 * Discord's OAuth2 token endpoint and GET /users/@me on 127.0.0.1: a code maps to a user, the
 * token request must be form-encoded with client authentication and a PKCE verifier.
 */
export async function startFakeDiscord(client: { id: string; secret: string }): Promise<{
  apiUrl: string; users: FakeUser[]; tokenRequests: TokenRequest[]; close: () => Promise<void>;
}> {
  const users: FakeUser[] = [];
  const tokenRequests: TokenRequest[] = [];
  const tokens = new Map<string, FakeUser>();
  const read = (req: IncomingMessage) => new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
    req.on('end', () => resolve(body));
  });
  const server: Server = createServer(async (req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'POST' && req.url === '/api/oauth2/token') {
      const form = Object.fromEntries(new URLSearchParams(await read(req)));
      tokenRequests.push({ contentType: req.headers['content-type'], authorization: req.headers.authorization, form });
      const basic = `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`;
      if (req.headers.authorization !== basic) return json(401, { error: 'invalid_client' });
      const user = users.find((candidate) => candidate.code === form.code);
      if (!user || form.grant_type !== 'authorization_code' || !form.code_verifier || !form.redirect_uri) return json(400, { error: 'invalid_grant' });
      const token = `tok-${user.id}-${tokens.size}`;
      tokens.set(token, user);
      return json(200, { access_token: token, token_type: 'Bearer', expires_in: 604800, scope: 'identify' });
    }
    if (req.method === 'GET' && req.url === '/api/users/@me') {
      const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!user) return json(401, { message: '401: Unauthorized', code: 0 });
      return json(200, { id: user.id, username: user.username, global_name: `${user.username} (display)`, avatar: null });
    }
    json(404, { message: '404: Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    apiUrl: `http://127.0.0.1:${port}/api`, users, tokenRequests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
