import { stmt } from './db/statements.ts';
import { openDatabase, type Db, type Synchronous } from './db/connection.ts';
import { bundledMigrations, migrate, type Migration } from './db/migrations.ts';
import { atomically } from './db/transaction.ts';
import { loadMasterKey, SecretBox } from './domain/secrets.ts';

export interface Store {
  db: Db;
  box: SecretBox;
  path: string;
  close(): void;
}

export interface StoreOptions {
  path: string;
  synchronous?: Synchronous;
  /** PUNCHCARD_MASTER_KEY; without it, a key file beside the database. */
  masterKey?: string | undefined;
  migrations?: Migration[];
}

const KEY_CHECK = 'punchcard-master-key-check';

/** Whether `box` holds the key the database was created with; null when it has no check value yet. */
export function masterKeyMatches(db: Db, box: SecretBox): boolean | null {
  const row = stmt<{ value: string }>(db, "SELECT value FROM meta WHERE key = 'master_key_check'").get();
  if (!row) return null;
  try {
    return box.open(row.value) === KEY_CHECK;
  } catch {
    return false;
  }
}

/** Fails fast on the wrong master key, instead of later on the first secret it cannot decrypt. */
function verifyMasterKey(db: Db, box: SecretBox): void {
  atomically(db, () => {
    const matches = masterKeyMatches(db, box);
    if (matches === null) {
      stmt(db, "INSERT INTO meta (key, value) VALUES ('master_key_check', ?)").run(box.seal(KEY_CHECK));
      return;
    }
    if (!matches) {
      throw new Error('The master key does not match this database. Set PUNCHCARD_MASTER_KEY (or restore the key file beside the database) to the key it was created with.');
    }
  });
}

/** Opens the database, applies pending migrations and unlocks encrypted secrets. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const db = openDatabase(options.path, options.synchronous ? { synchronous: options.synchronous } : {});
  try {
    migrate(db, options.migrations ?? (await bundledMigrations()));
    const box = new SecretBox(loadMasterKey(options.masterKey, `${options.path}.key`));
    verifyMasterKey(db, box);
    return { db, box, path: options.path, close: () => db.close() };
  } catch (error) {
    db.close();
    throw error;
  }
}
