// Claims per second on ONE reward with stock: every request contends for the same stock row.
//   node --import tsx bench/claims.ts            (BENCH_DURATION seconds, default 10; BENCH_CONNECTIONS, default 50)
// The real server (startServer: group commit, h3, auth, validation) on a temp database, 2,000 members
// with enough points, one CUSTOM reward whose stock outlasts the run, POST /rewards/{id}/redeem by
// one member from wrk (bench/wrk.ts, pinned to its own core) on 127.0.0.1: the member's balance row
// is contended as well as the stock row. Then the same claims in-process, without HTTP, one
// transaction (and one fsync) each — slower than the server, whose group commit shares one fsync per batch.
// At the end: stock + claims == the initial stock, and the ledger invariant holds.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { createItem } from '../src/domain/catalog/catalog-items.ts';
import { rewards } from '../src/domain/catalog/reward-kind.ts';
import { adjustPoints } from '../src/domain/ledger/ledger.ts';
import { upsertMember } from '../src/domain/members/members.ts';
import { createProject } from '../src/domain/project/projects.ts';
import { redeemReward } from '../src/domain/rewards/claims.ts';
import { startServer } from '../src/server.ts';
import { ensureWrk, runWrk } from './wrk.ts';

const duration = Math.min(Number(process.env.BENCH_DURATION ?? 10), 120);
const connections = Math.min(Number(process.env.BENCH_CONNECTIONS ?? 50), 200);
const MEMBERS = 2_000;
const STOCK = 5_000_000;
const dir = mkdtempSync(join(tmpdir(), 'punchcard-bench-claims-'));
const masterKey = randomBytes(32).toString('hex');

try {
  const server = await startServer({ db: join(dir, 'claims.db'), port: 0, host: '127.0.0.1', masterKey, logLevel: 'silent', scheduler: false });
  const { db, box } = server.ctx;
  const created = createProject(db, box, { name: 'Claims bench' }, new Date());
  const projectId = created.project.id;
  const externalIds = Array.from({ length: MEMBERS }, (_, i) => `member-${i}`);
  db.transaction(() => {
    for (const externalId of externalIds) {
      upsertMember(db, projectId, { externalId }, new Date());
      adjustPoints(db, projectId, externalId, { amount: 100_000_000 }, 'bench', new Date());
    }
  }).immediate();
  const reward = createItem(db, rewards, projectId, {
    key: null, name: 'Contended', description: null, imageUrl: null, type: 'CUSTOM', pointsCost: 1, stock: STOCK, maxClaimsPerUser: null, minLevel: 0,
    discountConfig: null, digitalContent: null, expiresAt: null, isActive: true,
  }, new Date());

  ensureWrk();
  const result = await runWrk(server.url, {
    method: 'POST', paths: [`/api/v1/rewards/${reward.id}/redeem`], body: JSON.stringify({ externalId: externalIds[0] }),
    authorization: `Bearer ${created.secretKey}`,
  }, { seconds: duration, connections, serverPid: process.pid, workDir: dir });
  const ok = result.requests - result.non2xx;
  const httpClaims = db.prepare('SELECT count(*) AS n FROM reward_claims').get() as { n: number };
  console.log(`HTTP: ${ok} claims in ${result.seconds.toFixed(1)} s = ${Math.round(ok / result.seconds)} claims/s over ${connections} connections`
    + ` (non-2xx ${result.non2xx}, errors ${result.errors}); latency p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms`);

  const inProcess = Math.min(20_000, STOCK);
  const started = performance.now();
  for (let i = 0; i < inProcess; i++) redeemReward(db, projectId, reward.id, externalIds[i % MEMBERS]!, 'bench', new Date());
  const seconds = (performance.now() - started) / 1000;
  console.log(`In-process: ${inProcess} claims (one transaction each) in ${seconds.toFixed(2)} s = ${Math.round(inProcess / seconds)} claims/s`);

  const stock = (db.prepare('SELECT stock FROM rewards WHERE id = ?').get(reward.id) as { stock: number }).stock;
  const claims = (db.prepare('SELECT count(*) AS n FROM reward_claims').get() as { n: number }).n;
  const problems = checkLedger(db);
  console.log(`Verified: stock ${stock} + claims ${claims} = ${stock + claims} (expected ${STOCK}); HTTP claims ${httpClaims.n} ≥ 2xx ${ok} (requests in flight at the stop commit uncounted); `
    + `ledger problems ${problems.length}`);
  await server.close();
  if (stock + claims !== STOCK || httpClaims.n < ok || problems.length > 0) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
