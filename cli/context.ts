import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { stmt } from '../src/db/statements.ts';
import { openStore, type Store } from '../src/db/store.ts';
import { setting } from './options.ts';

export const DEFAULT_DB = './data/punchcard.db';

/** The commands that make a new database when --db names none; every other one refuses. */
export const CREATING_COMMANDS = 'serve, migrate, projects create and seed --demo';

/** The --db option (or PUNCHCARD_DB) of the command being run. */
export const dbPath = (command: Command) => setting(command, 'db', String)!;

/**
 * Refuses a missing or empty database file: a wrong --db or working folder must not quietly
 * create (and then report on) a new empty database.
 */
export function requireDatabase(path: string): void {
  if (existsSync(path) && statSync(path).size > 0) return;
  throw new Error(`no database at ${resolve(path)}${existsSync(path) ? ' (the file is empty)' : ''}. `
    + `Pass --db PATH or set PUNCHCARD_DB, or run from the folder that holds ${DEFAULT_DB}; only ${CREATING_COMMANDS} create a new one.`);
}

/** An unknown --project fails with one line instead of an empty answer or a misleading error further in. */
function requireProject(store: Store, projectId: string | undefined): void {
  if (projectId === undefined || stmt(store.db, 'SELECT 1 FROM projects WHERE id = ?').get(projectId) !== undefined) return;
  throw new Error(`no project ${projectId}; \`punchcard projects list\` shows them`);
}

/**
 * Opens the database (applying pending migrations), checks --project, runs `work`, and always
 * closes it. Only commands that pass `create: true` may make a new database.
 */
export async function withStore<T>(command: Command, work: (store: Store) => T | Promise<T>,
  options: { create?: boolean; foreignSchema?: 'report' } = {}): Promise<T> {
  const path = dbPath(command);
  if (!options.create) requireDatabase(path);
  const store = await openStore({ path, masterKey: process.env.PUNCHCARD_MASTER_KEY, existing: !options.create, foreignSchema: options.foreignSchema });
  try {
    requireProject(store, (command.opts() as { project?: string }).project);
    return await work(store);
  } finally {
    store.close();
  }
}
