import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The checkout, where README.md and docs/ are. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The pages whose examples users paste: README.md and every docs/*.md. */
export const DOC_PAGES = ['README.md', ...readdirSync(`${ROOT}docs`).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];

export interface FencedBlock {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string: `sh`, `dotenv`, `crontab`, ``. */
  info: string;
  /** The block's lines, without the indentation of its fence (a block inside a list item). */
  text: string;
  /** The HTML comment just above the fence, e.g. `doc-test: run`; null when there is none. */
  marker: string | null;
}

/** Every fenced block of a page (``` fences, indented or not, as in list items). */
export function fencedBlocks(page: string): FencedBlock[] {
  const lines = readFileSync(`${ROOT}${page}`, 'utf8').split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!.slice(Math.min(indent, /^\s*/.exec(lines[i]!)![0].length)));
    const above = start > 0 ? /^\s*<!--\s*(.*?)\s*-->\s*$/.exec(lines[start - 1]!)?.[1] ?? null : null;
    blocks.push({ page, line: start + 1, info: open[2]!.trim(), text: body.join('\n'), marker: above });
  }
  return blocks;
}

/** The one block of `info` on `page` (the environment file, the cron line). */
export function onlyBlock(page: string, info: string): FencedBlock {
  const found = fencedBlocks(page).filter((block) => block.info === info);
  if (found.length !== 1) throw new Error(`${page} has ${found.length} \`\`\`${info} blocks; expected one`);
  return found[0]!;
}

/**
 * An environment file read as systemd's EnvironmentFile= reads it: `#` and `;` start a comment only
 * at the start of a line, so a comment after a value stays in the value; blank lines are skipped.
 */
export function readEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
    const at = trimmed.indexOf('=');
    if (at < 1) throw new Error(`not an assignment: ${line}`);
    env[trimmed.slice(0, at).trim()] = trimmed.slice(at + 1).trim();
  }
  return env;
}

/**
 * Follows every link (and picture) of the start page, the API reference and the guides a server serves under
 * /docs, and answers the ones that do not work: a page that is not 200, or an anchor (`#x`) that the
 * page it points into has no element for. Links to other sites are not followed.
 */
export async function brokenDocLinks(baseUrl: string): Promise<string[]> {
  const pages = new Map<string, Promise<{ status: number; html: string }>>();
  const load = (path: string) => {
    if (!pages.has(path)) {
      pages.set(path, fetch(`${baseUrl}${path}`).then(async (res) => ({ status: res.status, html: res.headers.get('content-type')?.startsWith('text/html') ? await res.text() : '' })));
    }
    return pages.get(path)!;
  };
  const broken: string[] = [];
  const queue = ['/', '/docs'];
  const crawled = new Set<string>();
  while (queue.length > 0) {
    const from = queue.shift()!;
    if (crawled.has(from)) continue;
    crawled.add(from);
    const { html } = await load(from);
    for (const [, raw] of html.matchAll(/<(?:a\s[^>]*href|img\s[^>]*src)="([^"]*)"/g)) {
      const href = raw!.replaceAll('&amp;', '&');
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith(baseUrl)) continue; // another site
      const url = new URL(href, `${baseUrl}${from}`);
      const path = url.pathname;
      const target = await load(path);
      if (target.status !== 200) broken.push(`${from} → ${href}: ${target.status}`);
      else if (url.hash && !target.html.includes(`id="${decodeURIComponent(url.hash.slice(1))}"`)) broken.push(`${from} → ${href}: no such anchor`);
      if (path === '/docs' || path.startsWith('/docs/')) queue.push(path);
    }
  }
  return broken;
}
