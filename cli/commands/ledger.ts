import { Command } from 'commander';
import { atomically } from '../../src/db/transaction.ts';
import { checkFigures, rebuildFigures, type FiguresCheck } from '../../src/domain/analytics/recount.ts';
import { checkLedger } from '../../src/domain/ledger/audit.ts';
import { deliveryHealth } from '../../src/webhooks/deliveries.ts';
import { couponHealth } from '../../src/domain/commerce/coupons.ts';
import { runExpiryPass } from '../../src/domain/ledger/expiry.ts';
import { releaseDuePendingPoints } from '../../src/domain/ledger/pending.ts';
import { adjustPoints, pendingPointsOf, recentTransactions } from '../../src/domain/ledger/ledger.ts';
import { erasureHealth } from '../../src/domain/members/erasure-sweep.ts';
import { listMembers, memberView, requireMember } from '../../src/domain/members/members.ts';
import { listProjects } from '../../src/domain/project/projects.ts';
import { databaseKeyFingerprint } from '../../src/db/store.ts';
import { resolve } from 'node:path';
import { bundledMigrations } from '../../src/db/migrations.ts';
import { describeDifferences, schemaDifferences, schemaRemedy } from '../../src/db/schema-check.ts';
import { sqliteVersion } from '../../src/db/sqlite.ts';
import { isSingleExecutable, VERSION } from '../../src/shared/assets.ts';
import { dbPath, hasDatabase, withStore } from '../context.ts';
import { parseDuration, parsePositiveInt, printJson, printSummary, printTable } from '../output.ts';
import { checkReplication } from './replicate.ts';

export const membersCommand = new Command('members').description("a project's members");

membersCommand.command('list')
  .description('list a project\'s members, newest first')
  .requiredOption('--project <projectId>', 'project')
  .option('--search <text>', 'match externalId, email or name')
  .option('--limit <n>', 'at most this many (1-100)', '50')
  .option('--json', 'print JSON')
  .action((options: { project: string; search?: string; limit: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const limit = Math.min(Math.max(Number.parseInt(options.limit, 10) || 50, 1), 100);
    const page = listMembers(db, options.project, { ...(options.search ? { search: options.search } : {}), limit, offset: 0 });
    if (options.json) return printJson(page);
    printTable(page.members.map((m) => ({ ...m })), ['externalId', 'email', 'name', 'points', 'totalPointsEarned', 'createdAt']);
    console.log(`${page.members.length} of ${page.pagination.total}`);
  }));

membersCommand.command('show')
  .description('one member: profile, balance, level and latest transactions (what a shopper asking about their points needs)')
  .argument('<externalId>', 'the member\'s externalId')
  .requiredOption('--project <projectId>', 'project')
  .option('--history <n>', 'how many of the latest transactions (1-100)', '10')
  .option('--json', 'print JSON')
  .action((externalId: string, options: { project: string; history: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const limit = parsePositiveInt(options.history, '--history');
    if (limit > 100) throw new Error(`--history must be at most 100 (got "${options.history}")`);
    const row = requireMember(db, options.project, externalId);
    const member = memberView(db, row);
    const transactions = recentTransactions(db, row.id, limit);
    // Imported points still pending (operations.md, Switching from another programme).
    const pendingPoints = pendingPointsOf(db, row.id);
    if (options.json) return printJson({ member, pendingPoints, transactions });
    printSummary({ ...member, pendingPoints, metadata: JSON.stringify(member.metadata) });
    console.log(`\nlatest transactions (${transactions.length}, newest first)`);
    printTable(transactions.map((t) => ({ ...t })), ['createdAt', 'amount', 'balance', 'type', 'source', 'actor', 'description', 'expiresAt']);
  }));

export const pointsCommand = new Command('points').description('adjust a member\'s balance by hand (recorded with actor "cli")');

pointsCommand.command('add')
  .description('award (positive) or deduct (negative) points')
  .requiredOption('--project <projectId>', 'project')
  .requiredOption('--member <externalId>', 'member externalId')
  .requiredOption('--amount <points>', 'whole number; negative deducts')
  .option('--description <text>', 'why, for the member\'s history')
  .option('--json', 'print JSON')
  .action((options: { project: string; member: string; amount: string; description?: string; json?: boolean }, command: Command) =>
    withStore(command, ({ db }) => {
      const amount = Number(options.amount);
      if (!Number.isSafeInteger(amount) || amount === 0) throw new Error(`--amount must be a non-zero whole number (got "${options.amount}")`);
      const result = adjustPoints(db, options.project, options.member, { amount, description: options.description }, 'cli', new Date());
      if (options.json) return printJson(result);
      console.log(`${amount > 0 ? 'Awarded' : 'Deducted'} ${Math.abs(amount)} points; ${options.member} now has ${result.member.points}.`);
    }));

export const expireCommand = new Command('expire')
  .description('run the point-expiry pass and release imported pending points that are due, now (the server also does both every minute)')
  .option('--json', 'print JSON')
  .action((options: { json?: boolean }, command: Command) => withStore(command, async ({ db }) => {
    const write = async <T>(work: () => T) => atomically(db, work);
    const report = await runExpiryPass(db, write, new Date());
    const released = await releaseDuePendingPoints(db, write, new Date());
    if (options.json) return printJson({ ...report, released });
    console.log(`Expired ${report.points} points across ${report.members} members.`);
    if (released.points > 0) console.log(`Released ${released.points} pending points to ${released.members} members.`);
  }));

/** What doctor checks before any database: this program runs here (its SQLite driver loads) and carries its migrations. */
async function programCheck() {
  return { version: VERSION, node: process.versions.node, singleExecutable: isSingleExecutable(), sqlite: sqliteVersion(), migrations: (await bundledMigrations()).length };
}

interface DoctorOptions { maxLag: string; rebuildFigures?: boolean; json?: boolean }

export const doctorCommand = new Command('doctor')
  .description('check this program (Node, the SQLite driver, its migrations), then the database: integrity, its schema against the migrations, the ledger invariant, '
    + 'the daily figures against the ledger and replication lag (exits 1 on any problem); report webhook backlogs. Without --db or PUNCHCARD_DB and no '
    + './data/punchcard.db yet, it checks the program alone')
  .option('--max-lag <duration>', 'replication lag that counts as a problem', '60s')
  .option('--rebuild-figures', 'first recount every project\'s daily figures (the admin\'s Overview) from the ledger, in one transaction')
  .option('--json', 'print JSON')
  .action(async (options: DoctorOptions, command: Command) => {
    const program = await programCheck();
    const programLine = `Program: Punchcard ${program.version}${program.singleExecutable ? ' (single executable)' : ''} on Node ${program.node}, `
      + `SQLite ${program.sqlite}, ${program.migrations} migrations.`;
    // A fresh install (the default path, nothing there yet) is not a problem; a --db or PUNCHCARD_DB naming nothing is.
    if (command.getOptionValueSourceWithGlobals('db') === 'default' && !hasDatabase(dbPath(command))) {
      const note = `Database: none yet at ${resolve(dbPath(command))}; \`punchcard serve\` creates it (--db or PUNCHCARD_DB names another).`;
      if (options.json) printJson({ healthy: true, program, database: null, note });
      else console.log(`${programLine}\n${note}`);
      return;
    }
    if (!options.json) console.log(programLine);
    await doctorDatabase(options, command, program);
  });

function doctorDatabase(options: DoctorOptions, command: Command, program: Awaited<ReturnType<typeof programCheck>>) {
  return withStore(command, async ({ db }) => {
    const rebuilt = options.rebuildFigures ? rebuildFigures(db) : null;
    const integrity = (db.pragma('quick_check') as { quick_check: string }[]).map((row) => row.quick_check);
    // A trigger, view, table or index no migration makes (or one changed or dropped): the server refuses to start on it.
    const schema = schemaDifferences(db, await bundledMigrations());
    const violations = checkLedger(db);
    const figures = checkFigures(db);
    const figuresInStep = inStep(figures);
    const replication = checkReplication(dbPath(command), parseDuration(options.maxLag));
    // A database no server has started on is not a healthy one: most likely --db names the wrong file.
    const projects = listProjects(db).length;
    const healthy = integrity.length === 1 && integrity[0] === 'ok' && schema.length === 0 && violations.length === 0 && figuresInStep
      && replication.problems.length === 0
      && projects > 0;
    // Webhook backlogs are reported, not failed on: a receiver being down is not database damage.
    const webhooks = deliveryHealth(db);
    const masterKey = databaseKeyFingerprint(db);
    const coupons = couponHealth(db);
    const erasure = erasureHealth(db);
    if (options.json) {
      printJson({ healthy, program, integrity, schema, violations, figures: { ...figures, rebuilt }, projects, masterKey: { fingerprint: masterKey },
        replication, webhooks, coupons, erasure });
    }
    else {
      if (rebuilt) console.log(`Daily figures: recounted from the ledger (${rebuilt.rows} rows in ${rebuilt.ms} ms).`);
      console.log(`Webhooks: ${webhooks.pendingDeliveries} deliveries pending, ${webhooks.deadDeliveries} dead, ${webhooks.failedWebhooks} webhooks disabled`
        + `${webhooks.deadDeliveries > 0 ? ' (punchcard webhooks deliveries --project ID --status dead)' : ''}`);
      for (const w of webhooks.failing) {
        console.log(`  ${w.id} (${w.url}, project ${w.projectId}): ${w.state === 'disabled' ? `DISABLED at ${w.disabledAt}` : 'FAILING'}`
          + `${w.failingSince ? `, nothing delivered since ${w.failingSince}` : ''}`);
      }
      console.log(`  ${webhooks.retention}`);
      console.log(`Store coupons: ${coupons.pending} waiting for their store, ${coupons.failed} failed for good (their points returned; the server log names each claim)`);
      console.log(`Erasure: ${erasure.unsweptErasures} erasure(s) since the last sweep of the search index (${erasure.searchIndexSegments} segment(s) now; `
        + `the server's hourly sweep merges them into one)${erasure.fileRewriteDue ? '; the file is rewritten once at the next server start (written before secure_delete)' : ''}`);
      console.log(`SQLite integrity: ${integrity.join('; ')}`);
      console.log(schema.length === 0 ? 'Schema: as the migrations make it.'
        : `Schema: NOT the migrations' (the server refuses to start on it): ${describeDifferences(schema)}. ${schemaRemedy(schema)}`);
      console.log(`Master key: fingerprint ${masterKey} (matches; keep a copy of the key off this machine)`);
      console.log(projects > 0 ? `Projects: ${projects}` : `Projects: none; no server has started on ${dbPath(command)} (is --db the right file?)`);
      console.log(violations.length === 0 ? 'Ledger: every balance equals the sum of its transactions.' : `Ledger: ${violations.length} problem(s):`);
      for (const v of violations) console.log(`  project ${v.projectId} member ${v.memberId}: ${v.problem}`);
      printFigures(figures);
      for (const line of [...replication.problems, ...replication.warnings]) console.log(line);
    }
    if (!healthy) process.exitCode = 1;
  }, { foreignSchema: 'report' });
}

/** The daily figures' part of doctor's report: in step, or the rows that are not (at most 100) and how to fix them. */
const inStep = (figures: FiguresCheck) => figures.problems.length === 0 && figures.memberDays === 0;

function printFigures(figures: FiguresCheck): void {
  if (inStep(figures)) {
    console.log("Daily figures: in step with the ledger (the admin's Overview and `report points`).");
    return;
  }
  console.log('Daily figures: out of step with the ledger; `punchcard doctor --rebuild-figures` recounts them:');
  const values = (row: Record<string, number> | null) => (row ? Object.entries(row).map(([column, value]) => `${column} ${value}`).join(', ') : 'no row');
  for (const p of figures.problems) console.log(`  project ${p.projectId} ${p.row}: the figures say ${values(p.figures)}; the ledger says ${values(p.ledger)}`);
  if (figures.memberDays > 0) console.log(`  ${figures.memberDays} member(s) with a latest day of activity other than their ledger's`);
}
