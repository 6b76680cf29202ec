// POST /events benchmark: does the number of quests in a project slow event matching down?
//   node --import tsx bench/events.ts [seconds=8] [rounds=2]
// For each project shape (1 active AUTOMATED quest, then 200 with only one matching the event) it
// seeds a fresh database, starts the real server in its own process pinned to CPU 0
// (`taskset -c 0`), and loads it from CPU 1 with wrk (`taskset -c 1`): first the award route
// (POST /members/{id}/points) as the reference, then POST /events matching exactly one quest.
// Shapes alternate for `rounds` rounds so drift on a shared machine hits both alike.
// Requires Linux, taskset and wrk (apt-get install -y wrk). Only 127.0.0.1 is ever loaded.
//
// Internal mode, used by the above: node --import tsx bench/events.ts serve <dir> <quests>
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createItem } from '../src/domain/catalog/catalog-items.ts';
import { quests } from '../src/domain/catalog/quest-kind.ts';
import { upsertMember } from '../src/domain/members/members.ts';
import { createProject } from '../src/domain/project/projects.ts';
import { startServer } from '../src/server.ts';
import { openStore } from '../src/db/store.ts';

const MEMBERS = 1000;
const CONNECTIONS = 32;

/** Seeds <dir>/bench.db with members and `questCount` quests (one matches "purchase"), then serves it. */
async function serve(dir: string, questCount: number): Promise<void> {
  const path = join(dir, 'bench.db');
  const masterKey = randomBytes(32).toString('hex');
  const store = await openStore({ path, masterKey });
  const now = new Date();
  const created = createProject(store.db, store.box, { name: 'Events bench' }, now);
  const projectId = created.project.id;
  store.db.transaction(() => {
    for (let i = 0; i < MEMBERS; i++) upsertMember(store.db, projectId, { externalId: `member-${i}` }, now);
    // The matching quest never completes, so every event is the same work: advance one attempt.
    createItem(store.db, quests, projectId, quest('purchase', 'Purchases'), now);
    for (let i = 1; i < questCount; i++) createItem(store.db, quests, projectId, quest(`other-action-${i}`, `Other ${i}`), now);
  }).immediate();
  store.close();
  const server = await startServer({ db: path, port: 0, host: '127.0.0.1', logLevel: 'silent', scheduler: false, masterKey });
  console.log(JSON.stringify({ url: server.url, secretKey: created.secretKey }));
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

function quest(action: string, name: string) {
  return {
    key: null, name, description: null, action, completionMode: 'AUTOMATED' as const, targetCount: 1_000_000, points: 10, badgeId: null,
    repeatable: false, cooldownMinutes: 0, imageUrl: null, linkUrl: null, startsAt: null, endsAt: null, isActive: true,
  };
}

interface Result { rps: number; p99Ms: number }

/** Runs wrk on CPU 1 with a Lua script that spreads requests over the members. */
function wrk(url: string, secretKey: string, route: 'award' | 'events', seconds: number, dir: string): Result {
  const script = join(dir, `${route}.lua`);
  const request = route === 'award'
    ? `local path = "/api/v1/members/member-" .. (n % ${MEMBERS}) .. "/points"; local body = '{"amount":1}'`
    : `local path = "/api/v1/events"; local body = '{"externalId":"member-' .. (n % ${MEMBERS}) .. '","event":"purchase"}'`;
  writeFileSync(script, `
n = 0
request = function()
  n = n + 1
  ${request}
  return wrk.format("POST", path, { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer ${secretKey}" }, body)
end
response = function(status) if status ~= 200 then io.stderr:write("status " .. status .. "\\n") end end
`);
  const run = spawnSync('taskset', ['-c', '1', 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr}`);
  if (run.stderr.includes('status')) throw new Error(`non-200 answers: ${run.stderr.slice(0, 200)}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1]);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(run.stdout);
  const p99Ms = p99 ? Number(p99[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[p99[2]!]! : Number.NaN;
  return { rps, p99Ms };
}

async function measure(questCount: number, seconds: number): Promise<{ award: Result; events: Result }> {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-events-bench-'));
  const child = spawn('taskset', ['-c', '0', process.execPath, '--import', 'tsx', new URL(import.meta.url).pathname, 'serve', dir, String(questCount)],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const { url, secretKey } = JSON.parse(line) as { url: string; secretKey: string };
    wrk(url, secretKey, 'events', 2, dir); // warm-up
    return { award: wrk(url, secretKey, 'award', seconds, dir), events: wrk(url, secretKey, 'events', seconds, dir) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const seconds = Math.min(Math.max(Number(process.argv[2] ?? 8), 1), 60);
  const rounds = Math.min(Math.max(Number(process.argv[3] ?? 2), 1), 5);
  console.log(`POST /events vs quests in the project: server on CPU 0, wrk (-t1 -c${CONNECTIONS}, ${seconds} s) on CPU 1, ${rounds} round(s).`);
  console.log('The machine may be shared: other processes on these CPUs move the figures; compare shapes within a run.');
  const totals = new Map<number, { award: Result[]; events: Result[] }>([[1, { award: [], events: [] }], [200, { award: [], events: [] }]]);
  for (let round = 1; round <= rounds; round++) {
    for (const questCount of totals.keys()) {
      const result = await measure(questCount, seconds);
      totals.get(questCount)!.award.push(result.award);
      totals.get(questCount)!.events.push(result.events);
      const show = (r: Result) => `${r.rps.toFixed(0).padStart(6)} req/s  p99 ${r.p99Ms.toFixed(2).padStart(6)} ms`;
      console.log(`round ${round}  ${String(questCount).padStart(3)} quests  award ${show(result.award)}  |  events ${show(result.events)}`);
    }
  }
  const mean = (results: Result[]) => results.reduce((sum, r) => sum + r.rps, 0) / results.length;
  const one = mean(totals.get(1)!.events);
  const many = mean(totals.get(200)!.events);
  console.log(`events mean: 1 quest ${one.toFixed(0)} req/s, 200 quests ${many.toFixed(0)} req/s: ${((many / one - 1) * 100).toFixed(1)}% (target: within 20%)`);
  // The award route does no quest work, so its rate in the same server tracks the machine's noise;
  // events relative to it compare the shapes with less of that noise.
  const relative = (shape: { award: Result[]; events: Result[] }) => mean(shape.events) / mean(shape.award);
  const [r1, r200] = [relative(totals.get(1)!), relative(totals.get(200)!)];
  console.log(`events / award: 1 quest ${r1.toFixed(2)}, 200 quests ${r200.toFixed(2)}: ${((r200 / r1 - 1) * 100).toFixed(1)}%`);
}

if (process.argv[2] === 'serve') await serve(process.argv[3]!, Number(process.argv[4]));
else await main();
