import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { type Command, Option } from 'commander';
import { begin, end } from '../../src/db/transaction.ts';
import { exportMembers } from '../../src/domain/members/export.ts';
import { importMember } from '../../src/domain/members/import.ts';
import { IMPORT_COLUMNS, memberImportLine } from '../../src/schemas/member-import.ts';
import { validate } from '../../src/shared/validate.ts';
import { withStore } from '../context.ts';
import { openNewPrivateFile, printJson } from '../output.ts';

type Format = 'csv' | 'jsonl';

/** One record of the file with the line it ends on (a quoted CSV field may span lines). */
interface FileRecord { line: number; raw: unknown }

/** Lines per transaction: short enough that the server's writes wait at most a few ms behind one. */
const BATCH = 1_000;
/** Below this a progress bar is only flicker. */
const PROGRESS_FROM = 5_000;
/** Errors and warnings printed as text; --json lists every one. */
const SHOWN = 20;

function formatOf(file: string, given: string | undefined): Format {
  if (given === 'csv' || given === 'jsonl') return given;
  if (/\.csv$/i.test(file)) return 'csv';
  if (/\.(jsonl|ndjson)$/i.test(file)) return 'jsonl';
  throw new Error(`cannot tell the format of ${file} from its name; pass --format csv or --format jsonl`);
}

/** A CSV cell left empty means "not given", as a key missing from a JSON line does. */
const dropEmpty = (row: { [key: string]: string }) => Object.fromEntries(Object.entries(row).filter(([, value]) => value !== ''));

/** The file's records; a file that cannot be read as a whole (bad header, broken quoting) fails before anything is written. */
async function readRecords(file: string, format: Format): Promise<FileRecord[]> {
  const text = readFileSync(file, 'utf8');
  if (format === 'jsonl') {
    return text.split('\n').flatMap((content, index) => {
      if (content.trim() === '') return [];
      try {
        return [{ line: index + 1, raw: JSON.parse(content) as unknown }];
      } catch {
        return [{ line: index + 1, raw: Symbol.for('invalid JSON') }];
      }
    });
  }
  const known = new Set<string>(IMPORT_COLUMNS);
  // Loaded here, not at start-up: every other command would pay for it.
  const { parse } = await import('csv-parse/sync');
  try {
    const rows = parse(text, {
      bom: true, trim: true, skip_empty_lines: true, info: true,
      columns: (header: string[]) => {
        const unknown = header.filter((column) => !known.has(column));
        if (unknown.length > 0) throw new Error(`unknown column(s) ${unknown.map((c) => `"${c}"`).join(', ')}; the columns are ${IMPORT_COLUMNS.join(', ')}`);
        if (!header.includes('externalId')) throw new Error('the header has no externalId column');
        return header;
      },
    }) as { record: { [key: string]: string }; info: { lines: number } }[];
    return rows.map(({ record, info }) => ({ line: info.lines, raw: dropEmpty(record) }));
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new Error(`${file}${line ? ` line ${line}` : ''}: ${(error as Error).message}; nothing was imported`);
  }
}

/** A bar on stderr, redrawn in place; only on a terminal (a log would fill with carriage returns). */
function progressBar(total: number): (done: number) => void {
  if (!process.stderr.isTTY || total < PROGRESS_FROM) return () => undefined;
  return (done) => {
    const width = 30;
    const filled = Math.round((done / total) * width);
    process.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor((done / total) * 100)}% ${done}/${total}`);
    if (done === total) process.stderr.write('\n');
  };
}

interface Noted { line: number; message: string }

export interface ImportReport {
  file: string;
  dryRun: boolean;
  members: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Points credited as opening balances by this run. */
  credited: number;
  errors: Noted[];
  warnings: Noted[];
  ms: number;
}

function addImport(members: Command): void {
  members.command('import')
    .description('create or update members from a CSV or JSON-lines file, each opening balance as one ledger entry; re-running it changes nothing')
    .argument('<file>', 'CSV with a header row, or JSON lines (.jsonl); columns: externalId, email, name, balance, level, joinedAt, pointsExpireAt')
    .requiredOption('--project <projectId>', 'project')
    .addOption(new Option('--format <format>', 'the file format (default: from the file name)').choices(['csv', 'jsonl']))
    .option('--dry-run', 'check every line and report what would happen; write nothing')
    .option('--json', 'print JSON')
    .action((file: string, options: { project: string; format?: string; dryRun?: boolean; json?: boolean }, command: Command) =>
      withStore(command, async ({ db }) => {
        const started = performance.now();
        // Each line is a savepoint; its undo pages go to a temporary journal, kept in memory here.
        db.pragma('temp_store = MEMORY');
        const records = await readRecords(file, formatOf(file, options.format));
        const report: ImportReport = { file, dryRun: options.dryRun === true, members: records.length, created: 0, updated: 0, unchanged: 0, credited: 0, errors: [], warnings: [], ms: 0 };
        const firstLine = new Map<string, number>();
        const progress = progressBar(records.length);
        const now = new Date();
        for (let start = 0; start < records.length; start += BATCH) {
          begin(db);
          try {
            for (const { line, raw } of records.slice(start, start + BATCH)) {
              try {
                if (typeof raw === 'symbol') throw new Error('is not valid JSON');
                const member = validate(memberImportLine, raw);
                const seen = firstLine.get(member.externalId);
                if (seen !== undefined) throw new Error(`externalId "${member.externalId}" is already on line ${seen}`);
                firstLine.set(member.externalId, line);
                const outcome = importMember(db, options.project, member, now);
                report[outcome.member]++;
                report.credited += outcome.credited;
                for (const message of outcome.warnings) report.warnings.push({ line, message: `${member.externalId} ${message}` });
              } catch (error) {
                report.errors.push({ line, message: (error as Error).message });
              }
            }
          } finally {
            end(db, !options.dryRun); // a dry run does the same work, then rolls it back
          }
          progress(Math.min(start + BATCH, records.length));
        }
        report.ms = Math.round(performance.now() - started);
        if (report.errors.length > 0) process.exitCode = 1;
        if (options.json) return printJson(report);
        const verb = options.dryRun ? 'Would import' : 'Imported';
        console.log(`${verb} ${records.length - report.errors.length} of ${records.length} member(s) from ${file} in ${report.ms} ms: `
          + `${report.created} new, ${report.updated} updated, ${report.unchanged} unchanged; ${report.credited} points of opening balances.`);
        for (const [what, list] of [['Error', report.errors], ['Warning', report.warnings]] as const) {
          for (const { line, message } of list.slice(0, SHOWN)) console.log(`${what}: line ${line}: ${message}`);
          if (list.length > SHOWN) console.log(`… and ${list.length - SHOWN} more ${what.toLowerCase()}s (--json lists them all)`);
        }
        if (report.errors.length > 0) console.log(options.dryRun ? 'Fix these lines, then import.' : 'The lines with errors were skipped; fix them and run the import again (it changes nothing it already did).');
      }));
}

/** Writes text to the stream, waiting when it is full: a large export never piles up in memory. */
async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

function addExport(members: Command): void {
  members.command('export')
    .description('write a project\'s members with balances and levels as CSV or JSON lines (what members import reads)')
    .requiredOption('--project <projectId>', 'project')
    .addOption(new Option('--format <format>', 'csv or jsonl').choices(['csv', 'jsonl']).default('csv'))
    .option('--output <file>', 'write to this new file (mode 0600: it holds personal data) instead of stdout')
    .action((options: { project: string; format: Format; output?: string }, command: Command) => withStore(command, async ({ db }) => {
      const { stringify } = await import('csv-stringify/sync');
      const out = options.output ? createWriteStream('', { fd: openNewPrivateFile(options.output) }) : process.stdout;
      if (options.format === 'csv') await write(out, stringify([], { header: true, columns: IMPORT_COLUMNS.filter((c) => c !== 'pointsExpireAt') }));
      // Members are read in one transaction: a consistent snapshot even while the server takes writes.
      db.exec('BEGIN');
      try {
        for (const member of exportMembers(db, options.project)) {
          await write(out, options.format === 'csv'
            ? stringify([member], { columns: IMPORT_COLUMNS.filter((c) => c !== 'pointsExpireAt') })
            : `${JSON.stringify(member)}\n`);
        }
      } finally {
        db.exec('COMMIT');
      }
      if (out !== process.stdout) {
        out.end();
        await once(out, 'finish');
      }
    }));
}

/** `punchcard members import` and `members export`: join the members command group. */
export function addMemberFiles(members: Command): void {
  addImport(members);
  addExport(members);
}
