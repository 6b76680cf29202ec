// Member search in a 1-member project, alone on the server and beside a 50,000-member project, in
// process (no HTTP, so the machine's noise moves it least): CPU per search over five texts the
// member holds, which the neighbour's members hold 25 to 50,000 times.
//   taskset -c 1 node --import tsx bench/search-projects.ts
// The same over HTTP, pinned, with p99: BENCH_ONLY=search-beside npm run bench.
import { neighbourSearchDataset } from './dataset.ts';
import { openStore } from '../src/db/store.ts';
import { listMembers } from '../src/domain/members/members.ts';
import { BENCH_MASTER_KEY, fmt } from './settings.ts';

const TEXTS = ['anna.garcia0', 'Anna Garcia', 'garcia', 'example.com', 'cust-00'];
const ROUNDS = 1_000;

for (const neighbours of [0, 50_000]) {
  const dataset = await neighbourSearchDataset(neighbours, 600);
  const store = await openStore({ path: dataset.path, masterKey: BENCH_MASTER_KEY });
  try {
    const searchAll = () => {
      for (const search of TEXTS) listMembers(store.db, dataset.projectId, { search, limit: 50, offset: 0 });
    };
    for (let i = 0; i < 200; i++) searchAll(); // warm: V8 and SQLite's page cache
    const before = process.cpuUsage();
    for (let i = 0; i < ROUNDS; i++) searchAll();
    const used = process.cpuUsage(before);
    console.log(`${neighbours === 0 ? 'alone' : `beside ${fmt(neighbours)} members`}: ${Math.round((used.user + used.system) / (ROUNDS * TEXTS.length))} µs of CPU per search`);
  } finally {
    store.close();
  }
}
