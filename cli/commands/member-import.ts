import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { type Command, Option } from 'commander';
import type { Db } from '../../src/db/connection.ts';
import { begin, end } from '../../src/db/transaction.ts';
import { storeSettings, liveStore } from '../../src/domain/commerce/stores.ts';
import { type ColumnMap, type ColumnPlan, type ImportSource, type SourceName, parseColumnMap, planColumns, rowFrom } from '../../src/domain/members/import/columns.ts';
import {
  checkRowDates, countRow, MAX_PENDING_DAYS, describeRowIdentity, type ImportCounts, importRow, type ImportRow, type ImportSettings, noImportCounts, rowIdentity, type RowReport,
  sumOfBalances,
} from '../../src/domain/members/import/importer.ts';
import { projectContext } from '../../src/domain/project/project-context.ts';
import { earlierRun, finishRun, startRun, type EarlierRun } from '../../src/domain/members/import/runs.ts';
import { guessSource, SOURCE_NAMES, sourceNamed } from '../../src/domain/members/import/sources.ts';
import { importJsonLine, importRow as importRowSchema } from '../../src/schemas/member-import.ts';
import { validate } from '../../src/shared/validate.ts';
import { withStore } from '../context.ts';
import { FileProblem, type FileFormat, type FileRecord, newReadState, readFile, sniffDelimiter, sniffEncoding } from '../import-reader.ts';
import { identityHash, SeenIdentities } from '../import-identities.ts';
import { progress } from '../import-progress.ts';
import { parsePositiveInt, printJson } from '../output.ts';

/** Rows per transaction: short enough that a server on the same file waits at most a few ms behind one. */
const BATCH = 1_000;
/** Smaller files import in a blink: no progress lines. */
const PROGRESS_FROM_BYTES = 256 * 1024;
/** Errors and warnings kept for the summary (all are printed as they come, in text). */
const KEPT = 100;

interface Options {
  project: string;
  from?: SourceName;
  map?: string;
  mode: 'add' | 'reset';
  pendingAsAvailable?: boolean;
  pendingDays: string;
  format?: FileFormat;
  dryRun?: boolean;
  strict?: boolean;
  newImport?: boolean;
  json?: boolean;
}

interface Noted { line: number; message: string }

/** A bounded list: the first KEPT, and how many more. */
class Notes {
  readonly list: Noted[] = [];
  count = 0;
  add(note: Noted): void {
    this.count++;
    if (this.list.length < KEPT) this.list.push(note);
  }
}

const formatOf = (file: string, given: FileFormat | undefined): FileFormat => given ?? (/\.(jsonl|ndjson)$/i.test(file) ? 'jsonl' : 'csv');

/** How a file is read: its format, delimiter and (CSV) its column plan once the header is seen. */
interface Reading {
  file: string;
  format: FileFormat;
  delimiter: string;
  source: ImportSource | undefined;
  map: ColumnMap;
  byEmail: boolean;
  plan?: ColumnPlan;
  header?: string[];
  guessed: boolean;
}

/** One record as a row to import, or the reason it is not one. A CSV header record returns null. */
function rowOf(reading: Reading, record: FileRecord): ImportRow | null {
  if (record.text !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(record.text);
    } catch {
      throw new Error('is not valid JSON');
    }
    return validate(importJsonLine, value);
  }
  if (!reading.plan) {
    reading.header = record.fields;
    if (!reading.source) {
      reading.source = guessSource(record.fields);
      reading.guessed = true;
      if (!reading.source) {
        throw new FileProblem(`cannot tell which programme wrote this file from its header (${record.fields.join(', ')}): pass --from ${SOURCE_NAMES.join('|')}, or name the columns with --map field=Column`, record.line);
      }
    }
    try {
      reading.plan = planColumns(record.fields, reading.source, reading.map, { byEmail: reading.byEmail });
    } catch (error) {
      throw new FileProblem((error as Error).message, record.line);
    }
    return null;
  }
  if (record.fields.length !== reading.header!.length) {
    throw new Error(`has ${record.fields.length} fields; the header has ${reading.header!.length}`);
  }
  return validate(importRowSchema, rowFrom(reading.plan, record.fields));
}

interface Check {
  rows: number;
  errors: Notes;
  /** Lines to skip in the import, with their errors. */
  bad: Map<number, string>;
  fingerprint: string;
  fileBalance: number;
  filePending: number;
}

/** The first pass: reads the whole file, checks every row and the duplicates, and hashes it. Writes nothing. */
async function checkFile(reading: Reading, size: number, timeZone: string, now: Date): Promise<Check> {
  const state = newReadState();
  const check: Check = { rows: 0, errors: new Notes(), bad: new Map(), fingerprint: '', fileBalance: 0, filePending: 0 };
  const refuse = (line: number, message: string) => {
    check.bad.set(line, message);
    check.errors.add({ line, message });
  };
  const seen = new SeenIdentities();
  const shown = size >= PROGRESS_FROM_BYTES ? progress(`checking ${basename(reading.file)}`, size) : undefined;
  for await (const records of readFile(reading.file, reading.format, reading.delimiter, state)) for (const record of records) {
    let row: ImportRow | null;
    try {
      row = rowOf(reading, record);
      if (row !== null) checkRowDates(row, timeZone, now);
    } catch (error) {
      if (error instanceof FileProblem) throw error;
      check.rows++;
      refuse(record.line, (error as Error).message);
      continue;
    }
    if (row === null) continue;
    check.rows++;
    const first = seen.firstLine(identityHash(rowIdentity(row)), record.line);
    if (first !== undefined) {
      refuse(record.line, `${describeRowIdentity(row)} is already on line ${first}`);
      continue;
    }
    check.fileBalance += row.balance;
    check.filePending += row.pending;
    shown?.update(check.rows, record.read);
  }
  if (reading.format === 'csv' && !reading.plan) throw new FileProblem('the file is empty: it has no header row');
  shown?.done(check.rows);
  check.fingerprint = state.hash.digest('hex');
  return check;
}

interface ImportSummary extends ImportCounts {
  file: string;
  source: SourceName | 'jsonl';
  guessed: boolean;
  columns: Record<string, string>;
  ignoredColumns: string[];
  mode: 'add' | 'reset';
  pending: 'pending' | 'available';
  dryRun: boolean;
  importKey: string;
  continues: EarlierRun | null;
  rows: number;
  /** The sums of the file's balance and pending columns over its good rows. */
  fileBalance: number;
  filePending: number;
  /** The project's sum of balances before and after. */
  balancesBefore: number;
  balancesAfter: number;
  errors: Noted[];
  moreErrors: number;
  warnings: Noted[];
  moreWarnings: number;
  ms: number;
}

const pointsText = (report: RowReport) => [report.points !== 0 ? `${report.points > 0 ? '+' : ''}${report.points} points` : '',
  report.pending > 0 ? `${report.pending} pending` : ''].filter(Boolean).join(', ');

/** The second pass: imports the good rows, BATCH to a transaction (rolled back in a dry run). */
async function importFile(db: Db, reading: Reading, check: Check, settings: ImportSettings, options: Options, summary: ImportSummary, size: number): Promise<string> {
  const state = newReadState();
  const warnings = new Notes();
  const errors = check.errors;
  const shown = size >= PROGRESS_FROM_BYTES ? progress(`${options.dryRun ? 'trying' : 'importing'} ${basename(reading.file)}`, size) : undefined;
  const now = new Date();
  const text = !options.json;
  let inBatch = 0;
  let done = 0;
  // The header is read again in this pass: its plan is made anew.
  const again: Reading = { ...reading, plan: undefined };
  try {
    for await (const records of readFile(reading.file, reading.format, reading.delimiter, state)) for (const record of records) {
      const refused = check.bad.get(record.line);
      if (refused !== undefined) {
        if (text) console.log(`line ${record.line}: skipped: ${refused}`);
        continue;
      }
      let row: ImportRow | null;
      try {
        row = rowOf(again, record);
      } catch (error) {
        if (error instanceof FileProblem) throw error;
        throw new FileProblem(`line ${record.line} changed while it was imported (${(error as Error).message})`);
      }
      if (row === null) continue;
      if (inBatch === 0) begin(db);
      inBatch++;
      try {
        const report = importRow(db, settings, row, `line ${record.line}`, now);
        countRow(summary, report);
        if (text && options.dryRun) console.log(`line ${record.line}: ${report.outcome} ${report.externalId}${pointsText(report) ? ` (${pointsText(report)})` : ''}`);
        for (const message of report.warnings) {
          warnings.add({ line: record.line, message: `${report.externalId} ${message}` });
          if (text) console.log(`line ${record.line}: warning: ${report.externalId} ${message}`);
        }
      } catch (error) {
        if (options.strict) throw new FileProblem(`line ${record.line}: ${(error as Error).message} (--strict: the import stopped there)`);
        errors.add({ line: record.line, message: (error as Error).message });
        summary.skipped++;
        if (text) console.log(`line ${record.line}: skipped: ${(error as Error).message}`);
      }
      done++;
      if (inBatch === BATCH) {
        end(db, !options.dryRun);
        inBatch = 0;
      }
      shown?.update(done, record.read);
    }
  } catch (error) {
    if (inBatch > 0) end(db, false);
    inBatch = 0;
    throw error;
  } finally {
    if (inBatch > 0) end(db, !options.dryRun);
  }
  shown?.done(done);
  summary.warnings = warnings.list;
  summary.moreWarnings = warnings.count - warnings.list.length;
  return state.hash.digest('hex');
}

function printSummary(summary: ImportSummary, options: Options): void {
  const verb = options.dryRun ? 'Would import' : 'Imported';
  const from = summary.source === 'jsonl' ? 'JSON lines' : `${sourceNamed(summary.source).label}${summary.guessed ? ' (guessed from its header)' : ''}`;
  console.log(`${verb} ${summary.file} as ${from}, mode ${summary.mode}${options.dryRun ? ' (dry run: nothing was written)' : ''}.`);
  if (Object.keys(summary.columns).length > 0) console.log(`Columns read: ${Object.entries(summary.columns).map(([field, column]) => `${field} ← ${column}`).join(', ')}.`);
  if (summary.ignoredColumns.length > 0) console.log(`Columns ignored: ${summary.ignoredColumns.join(', ')}.`);
  console.log(`Members: ${summary.created} new, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.skipped} skipped (of ${summary.rows} rows).`);
  console.log(`Points: ${summary.pointsImported} added to balances${summary.filePending > 0 || summary.pendingImported > 0
    ? `; pending points ${summary.pending === 'pending' ? `kept pending: ${summary.pendingImported}` : 'made available at once (--pending-as-available)'}` : ''}.`);
  console.log(`Sum of balances: ${summary.balancesBefore} before, ${summary.balancesAfter} after.`);
  if (summary.warnings.length + summary.moreWarnings > 0) console.log(`${summary.warnings.length + summary.moreWarnings} warning(s), listed above.`);
  if (summary.skipped > 0) {
    console.log(options.dryRun ? 'Fix the lines listed above, then import.'
      : 'The lines listed above were skipped: fix them in the file and import it again (lines already imported are left as they are).');
  }
}

function addImportCommand(members: Command): void {
  members.command('import')
    .description('bring members and their points over from another programme (Smile, LoyaltyLion, WooCommerce Points & Rewards, myCred) or a CSV/JSON-lines file; each opening balance is one IMPORTED ledger entry, and re-running changes nothing')
    .argument('<file>', 'the export: CSV (comma, semicolon or tab; any column order) or JSON lines (.jsonl)')
    .requiredOption('--project <projectId>', 'project')
    .addOption(new Option('--from <programme>', 'which programme wrote the file (default: guessed from the header, and said)').choices(SOURCE_NAMES))
    .option('--map <pairs>', 'read fields from other columns: field=Column,… (fields: externalId, email, name, balance, pending, level, joinedAt, birthday, pointsExpireAt, referralCode)')
    .addOption(new Option('--mode <mode>', 'add: add each row\'s points to what the member holds; reset: set the balance to the row\'s').choices(['add', 'reset']).default('add'))
    .option('--pending-as-available', 'import pending points (LoyaltyLion\'s) into the balance at once, instead of as pending')
    .option('--pending-days <days>', 'days until pending points become available', '30')
    .addOption(new Option('--format <format>', 'csv or jsonl (default: from the file name)').choices(['csv', 'jsonl']))
    .option('--dry-run', 'read the whole file and report, line by line, what would happen; write nothing')
    .option('--strict', 'refuse the whole import if any line has an error')
    .option('--new-import', 'a file of the same name as an earlier import that skipped lines is a new import, not a corrected copy')
    .option('--json', 'print the summary as JSON (and nothing else on stdout)')
    .action((file: string, options: Options, command: Command) => withStore(command, async ({ db }) => {
      const started = performance.now();
      const pendingDays = options.pendingDays === '0' ? 0 : parsePositiveInt(options.pendingDays, '--pending-days');
      if (pendingDays > MAX_PENDING_DAYS) throw new Error(`--pending-days must be at most ${MAX_PENDING_DAYS} (got ${pendingDays})`);
      const format = formatOf(file, options.format);
      let size: number;
      try {
        size = statSync(file).size;
      } catch {
        throw new Error(`cannot read ${file}: no such file`);
      }
      // Each line is a savepoint; its undo pages go to a temporary journal, kept in memory here.
      db.pragma('temp_store = MEMORY');
      // An import writes new rows in order and looks members up by index: 8 MB of page cache does,
      // where the server's 32 MB would be a quarter of the memory a large import may take.
      db.pragma('cache_size = -8192');
      const store = liveStore(db, options.project);
      const reading: Reading = {
        file, format, delimiter: ',', map: options.map ? parseColumnMap(options.map) : {},
        // --map without --from reads another programme's export: Punchcard's columns, with the file's named.
        source: options.from ? sourceNamed(options.from) : options.map ? sourceNamed('csv') : undefined,
        byEmail: store !== undefined && storeSettings(store).memberIdentifier === 'email', guessed: false,
      };
      let check: Check;
      try {
        sniffEncoding(file);
        if (format === 'csv') reading.delimiter = sniffDelimiter(file);
        check = await checkFile(reading, size, projectContext(db, options.project).timeZone, new Date());
      } catch (error) {
        if (!(error instanceof FileProblem)) throw error;
        throw new Error(`${file}${error.line ? ` line ${error.line}` : ''}: ${error.message}; nothing was imported`);
      }
      if (reading.guessed && !options.json) console.log(`${file}: read as ${reading.source!.label} (guessed from its header; pass --from to say otherwise).`);
      if (options.strict && check.errors.count > 0) {
        if (options.json) printJson({ file, strict: true, rows: check.rows, errors: check.errors.list, moreErrors: check.errors.count - check.errors.list.length });
        else for (const { line, message } of check.errors.list) console.log(`line ${line}: ${message}`);
        process.exitCode = 1;
        if (!options.json) console.log(`${check.errors.count} line(s) have errors: nothing was imported (--strict).`);
        return;
      }

      const source = format === 'jsonl' ? 'csv' : reading.source!.name;
      const fileName = basename(file);
      const continues = options.newImport ? undefined : earlierRun(db, options.project, { fingerprint: check.fingerprint, fileName, source });
      const importKey = continues?.importKey ?? check.fingerprint.slice(0, 32);
      if (continues && !options.json) {
        console.log(continues.relation === 'same file'
          ? `${fileName} was imported before (${continues.startedAt}): lines already imported are left as they are.`
          : `${fileName} looks like a corrected copy of the file imported ${continues.startedAt} (${continues.finished ? `${continues.skipped} line(s) skipped then` : 'that run was stopped'}): lines already imported are left as they are (--new-import to import every line again).`);
      }
      const settings: ImportSettings = {
        projectId: options.project, mode: options.mode, importKey, label: format === 'jsonl' ? 'JSON lines' : reading.source!.label, origin: fileName,
        actor: 'cli', pending: options.pendingAsAvailable ? { as: 'available' } : { as: 'pending', days: pendingDays },
      };
      const summary: ImportSummary = {
        file, source: format === 'jsonl' ? 'jsonl' : source, guessed: reading.guessed, columns: { ...reading.plan?.read }, ignoredColumns: reading.plan?.ignored ?? [],
        mode: options.mode, pending: settings.pending.as, dryRun: options.dryRun === true, importKey, continues: continues ?? null, rows: check.rows,
        ...noImportCounts(), skipped: check.bad.size, fileBalance: check.fileBalance,
        filePending: check.filePending, balancesBefore: sumOfBalances(db, options.project), balancesAfter: 0, errors: [], moreErrors: 0, warnings: [],
        moreWarnings: 0, ms: 0,
      };
      const runId = options.dryRun ? undefined : startRun(db, options.project, { importKey, fingerprint: check.fingerprint, source, fileName, mode: options.mode }, new Date());
      let fingerprint: string;
      try {
        fingerprint = await importFile(db, reading, check, settings, options, summary, size);
      } catch (error) {
        if (!(error instanceof FileProblem)) throw error;
        throw new Error(`${file}: ${error.message}; the lines before it were imported, run the import again to finish`);
      }
      if (fingerprint !== check.fingerprint) throw new Error(`${file} changed while it was imported: run the import again (lines already imported are left as they are)`);
      if (runId !== undefined) finishRun(db, runId, { rows: summary.rows, skipped: summary.skipped }, new Date());
      summary.errors = check.errors.list;
      summary.moreErrors = check.errors.count - check.errors.list.length;
      summary.balancesAfter = options.dryRun ? summary.balancesBefore + summary.pointsImported : sumOfBalances(db, options.project);
      summary.ms = Math.round(performance.now() - started);
      if (summary.skipped > 0) process.exitCode = 1;
      if (options.json) printJson(summary);
      else printSummary(summary, options);
    }));
}

export { addImportCommand };
