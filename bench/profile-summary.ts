// Summarises a V8 CPU profile (from BENCH_CPU_PROF=dir npm run bench, or node --cpu-prof):
//   node --import tsx bench/profile-summary.ts <file.cpuprofile> [top=25]
// Prints where the time went by area (src/, h3, better-sqlite3 …), then the functions with the
// most self time and the most inclusive time.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg = '25'] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
const top = Number(topArg);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const root = process.cwd();
function where(url: string): string {
  if (!url) return '';
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  return path.startsWith('/') ? relative(root, path) : path;
}

function area(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const path = where(url);
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1]!;
  if (path.startsWith('node:')) return 'node: internals';
  return path.split('/').slice(0, 2).join('/');
}

const key = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'}  ${where(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;

const selfTime = new Map<string, number>();
const inclusive = new Map<string, number>();
const areas = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  const leaf = byId.get(id)!;
  selfTime.set(key(leaf), (selfTime.get(key(leaf)) ?? 0) + dt);
  areas.set(area(leaf), (areas.get(area(leaf)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let node: ProfileNode | undefined = leaf; node; node = byId.get(parent.get(node.id) ?? -1)) {
    const k = key(node);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
  }
});

const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
const share = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
const print = (title: string, entries: Map<string, number>, limit: number) => {
  console.log(`\n${title}`);
  for (const [name, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, limit)) console.log(`${ms(us)} ${share(us)}  ${name}`);
};

console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
print('Self time by area (idle = event loop waiting)', areas, 40);
print(`Top ${top} functions by self time`, selfTime, top);
print(`Top ${top} by inclusive time`, inclusive, top);
