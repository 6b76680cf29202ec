import type { Command } from 'commander';
import { openStore, type Store } from '../src/store.ts';

export interface GlobalOptions {
  db: string;
}

export const DEFAULT_DB = './data/punchcard.db';

/** The --db option (or PUNCHCARD_DB) of the command being run. */
export const dbPath = (command: Command) => (command.optsWithGlobals() as GlobalOptions).db;

/** Opens the database (applying pending migrations), runs `work`, and always closes it. */
export async function withStore<T>(command: Command, work: (store: Store) => T | Promise<T>): Promise<T> {
  const store = await openStore({ path: dbPath(command), masterKey: process.env.PUNCHCARD_MASTER_KEY });
  try {
    return await work(store);
  } finally {
    store.close();
  }
}
