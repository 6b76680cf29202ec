// The ceiling: a bare node:http server that reads and parses a small JSON POST body and answers a
// fixed JSON body. Started by bench/run.ts in its own process; prints {"url": …} as one JSON line.
import { createServer } from 'node:http';
import { serveReference } from './child.ts';

const reply = JSON.stringify({ ok: true, points: 1 });
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let status = 200;
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      status = 400;
    }
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
    res.end(reply);
  });
});
serveReference(server);
