// Recovery point and time of `serve --replicate` with a file:// replica, measured:
//   npm run bench:recovery            (RECOVERY_SECONDS of load, default 10)
// Starts `punchcard serve --replicate` (Litestream's default 1 s interval), awards points from 16
// concurrent clients, then kills the server and Litestream together with SIGKILL while the load
// runs, as a dead machine would (no last sync); with RECOVERY_KILL=server only the server, as a
// crash would (Litestream then exits at its next log line, also without a last sync). Then
// `punchcard restore` into a new file and a server start on it. Prints how many acknowledged awards the replica lacked, how many seconds of
// acknowledged writes they span (the recovery point), and how long restore and start took.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/db/store.ts';
import { processAlive, readStatusRecord } from '../src/replication/status.ts';
import { punchcard, spawnServer } from '../test/helpers/cli.ts';
import { client } from '../test/helpers/http.ts';
import { TEST_MASTER_KEY } from '../test/helpers/server.ts';

const SECONDS = Number(process.env.RECOVERY_SECONDS ?? 10);
const MEMBERS = 100;
const dir = mkdtempSync(join(tmpdir(), 'punchcard-recovery-'));
const db = join(dir, 'live.db');
const replica = `file://${join(dir, 'replica')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  const server = await spawnServer(db, ['--replicate', replica]);
  const api = client(server.url, /secret key\s+(sk_live_\w+)/.exec(server.output())![1]);
  for (let i = 0; i < MEMBERS; i++) await api.post('/api/v1/members', { externalId: `m${i}` });

  const acked = new Map<string, number>();
  let running = true;
  const worker = async (w: number) => {
    for (let i = 0; running; i++) {
      const res = await api.post(`/api/v1/members/m${(i * 16 + w) % MEMBERS}/points`, { amount: 1 }).catch(() => null);
      if (res?.status === 200) acked.set(res.body.transaction.id, Date.now());
    }
  };
  const load = Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));
  await sleep(SECONDS * 1000);
  const litestream = readStatusRecord(db)!.litestreamPid!;
  const machineDies = process.env.RECOVERY_KILL !== 'server';
  const killedAt = Date.now();
  if (machineDies) process.kill(litestream, 'SIGKILL');
  server.child.kill('SIGKILL');
  running = false;
  await load;
  while (processAlive(litestream)) await sleep(20); // when only the server was killed, Litestream is still exiting

  const restored = join(dir, 'restored.db');
  const restoreStart = Date.now();
  const result = punchcard(['restore', '--from', replica, '--db', restored]);
  const restoreMs = Date.now() - restoreStart;
  if (result.status !== 0) throw new Error(`restore failed: ${result.stderr}${result.stdout}`);
  const startStart = Date.now();
  const again = await spawnServer(restored);
  const startMs = Date.now() - startStart;
  again.child.kill('SIGTERM');

  const store = await openStore({ path: restored, masterKey: TEST_MASTER_KEY });
  const present = new Set(store.db.prepare('SELECT public_id FROM transactions').pluck().all() as string[]);
  store.close();
  const lost = [...acked].filter(([id]) => !present.has(id)).map(([, at]) => at);
  const window = lost.length === 0 ? 0 : (killedAt - Math.min(...lost)) / 1000;
  console.log(`${acked.size} awards acknowledged in ${SECONDS} s (${Math.round(acked.size / SECONDS)}/s); ${machineDies ? 'server and Litestream SIGKILLed together' : 'server SIGKILLed, Litestream left to finish'}.`);
  console.log(`Recovery point: ${lost.length} acknowledged awards missing from the replica, the last ${window.toFixed(2)} s before the kill.`);
  console.log(`Recovery time: restore ${(restoreMs / 1000).toFixed(2)} s (database ${(statSync(restored).size / 1e6).toFixed(1)} MB, checks included), ` +
    `server start ${(startMs / 1000).toFixed(2)} s.`);
} finally {
  await sleep(500);
  rmSync(dir, { recursive: true, force: true });
}
