// The h3 floor: the bare server's work (read and parse a small JSON POST body, answer a fixed
// JSON body) as a minimal h3 app on node:http, routed like the award route. What any h3 route
// costs before it does anything of its own. Started by bench/run.ts in its own process; prints
// {"url": …} as one JSON line.
import { createServer } from 'node:http';
import { H3, toNodeHandler } from 'h3';
import { serveReference } from './child.ts';

const reply = { ok: true, points: 1 };
const app = new H3();
app.post('/api/v1/members/:externalId/points', async (event) => {
  await event.req.json();
  return reply;
});
serveReference(createServer(toNodeHandler(app)));
