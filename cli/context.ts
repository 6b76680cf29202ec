import { existsSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Db } from '../src/db/connection.ts';
import { stmt } from '../src/db/statements.ts';
import { openStore, type Store } from '../src/db/store.ts';
import { beforeEveryChangingCommit } from '../src/db/transaction-hooks.ts';
import { projectOfId, recordAudit } from '../src/domain/audit/audit-log.ts';
import { summarize } from '../src/domain/audit/summary.ts';
import { setting } from './options.ts';

export const DEFAULT_DB = './data/punchcard.db';

/** The commands that make a new database when --db names none; every other one refuses. */
export const CREATING_COMMANDS = 'serve, migrate, projects create and seed --demo';

/** The --db option (or PUNCHCARD_DB) of the command being run. */
export const dbPath = (command: Command) => setting(command, 'db', String)!;

/** Whether a database file is there, and not empty. */
export const hasDatabase = (path: string): boolean => existsSync(path) && statSync(path).size > 0;

/**
 * Refuses a missing or empty database file: a wrong --db or working folder must not quietly
 * create (and then report on) a new empty database.
 */
export function requireDatabase(path: string): void {
  if (hasDatabase(path)) return;
  throw new Error(`no database at ${resolve(path)}${existsSync(path) ? ' (the file is empty)' : ''}. `
    + `Pass --db PATH or set PUNCHCARD_DB, or run from the folder that holds ${DEFAULT_DB}; only ${CREATING_COMMANDS} create a new one.`);
}

/** An unknown --project fails with one line instead of an empty answer or a misleading error further in. */
function requireProject(store: Store, projectId: string | undefined): void {
  if (projectId === undefined || stmt(store.db, 'SELECT 1 FROM projects WHERE id = ?').get(projectId) !== undefined) return;
  throw new Error(`no project ${projectId}; \`punchcard projects list\` shows them`);
}

/** Who ran the command, as the audit log names them: the OS user (or just "cli" where there is none). */
function cliUser(): string {
  try {
    return userInfo().username || 'cli';
  } catch {
    return 'cli';
  }
}

/** Options that say nothing about the change (output, the database) are left out of its audit entry. */
const OUTPUT_OPTIONS = new Set(['json', 'db', 'project', 'output', 'dryRun', 'force', 'publicUrl']);

/**
 * Every transaction of the command that changes a row writes an audit entry in it, before its
 * COMMIT, whichever domain function it ran: the command (`keys create`), its first argument as the
 * target, its options (without secrets or personal data), its project (--project, or the project of
 * the id it names).
 */
function auditCommand(db: Db, command: Command): void {
  const words: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) words.unshift(at.name());
  const target = command.args[0] ?? '';
  const options = Object.fromEntries(Object.entries(command.opts()).filter(([name]) => !OUTPUT_OPTIONS.has(name)));
  const actor = { type: 'cli' as const, id: cliUser(), label: 'cli' };
  // --project read at the commit: a command that picks the project itself sets the option first.
  beforeEveryChangingCommit(db, () => recordAudit(db, {
    projectId: (command.opts() as { project?: string }).project ?? projectOfId(db, target), actor, action: words.join(' '), target,
    summary: summarize({ after: options }, { member: ['members', 'points'].includes(words[0] ?? '') }),
  }, new Date()));
}

/**
 * Opens the database (applying pending migrations), checks --project, records the command's
 * changes in the audit log, runs `work`, and always closes it. Only commands that pass
 * `create: true` may make a new database.
 */
export async function withStore<T>(command: Command, work: (store: Store) => T | Promise<T>,
  options: { create?: boolean; foreignSchema?: 'report' } = {}): Promise<T> {
  const path = dbPath(command);
  if (!options.create) requireDatabase(path);
  const store = await openStore({ path, masterKey: process.env.PUNCHCARD_MASTER_KEY, existing: !options.create, foreignSchema: options.foreignSchema });
  try {
    requireProject(store, (command.opts() as { project?: string }).project);
    auditCommand(store.db, command);
    return await work(store);
  } finally {
    store.close();
  }
}
