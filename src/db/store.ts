import { stmt } from './statements.ts';
import { openDatabase, type Db, type Synchronous } from './connection.ts';
import { bundledMigrations, migrate, type Migration } from './migrations.ts';
import { requireMigrationsSchema, schemaDifferences } from './schema-check.ts';
import { atomically } from './transaction.ts';
import { createKeyFile, findMasterKey, keyFingerprint, SecretBox, type FoundKey } from '../shared/secrets.ts';

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
  /** The file must already be a Punchcard database (commands that do not create one). */
  existing?: boolean;
  /**
   * A database whose schema is not the migrations' (src/db/schema-check.ts) is refused before
   * anything runs on it; `report` opens it anyway, without migrating it, for `punchcard doctor`
   * to name what differs.
   */
  foreignSchema?: 'refuse' | 'report';
}

const KEY_CHECK = 'punchcard-master-key-check';

const meta = (db: Db, key: string) => stmt<{ value: string }>(db, 'SELECT value FROM meta WHERE key = ?').get(key)?.value ?? null;

/** The fingerprint of the master key this database was created with (null before its first key). */
export const databaseKeyFingerprint = (db: Db) => meta(db, 'master_key_fingerprint');

/** Whether `box` holds the key the database was created with; null when it has no check value yet. */
export function masterKeyMatches(db: Db, box: SecretBox): boolean | null {
  const check = meta(db, 'master_key_check');
  if (check === null) return null;
  try {
    return box.open(check) === KEY_CHECK;
  } catch {
    return false;
  }
}

export interface MasterKeyCheck {
  /** unkeyed: the database holds no encrypted data and no key was found, so a new one may be made. */
  state: 'ok' | 'missing' | 'wrong' | 'unkeyed';
  found: FoundKey | null;
  /** What to do, naming the key the database needs; null when nothing is wrong. */
  problem: string | null;
}

/** Checks the master key for the database at `path` (env value, else `path`.key) without writing anything. */
export function checkMasterKey(db: Db, path: string, envValue: string | undefined): MasterKeyCheck {
  const keyFile = `${path}.key`;
  const fingerprint = meta(db, 'master_key_fingerprint');
  const keyed = fingerprint !== null || meta(db, 'master_key_check') !== null
    || stmt(db, 'SELECT 1 FROM projects LIMIT 1').get() !== undefined;
  const needed = fingerprint ? `the key with fingerprint ${fingerprint}` : 'the key it was created with';
  const fix = `Set PUNCHCARD_MASTER_KEY to ${needed}, or put that key in ${keyFile} (mode 0600).`;
  let found: FoundKey | null;
  try {
    found = findMasterKey(envValue, keyFile);
  } catch (error) {
    return { state: 'wrong', found: null, problem: `${(error as Error).message}. ${path} needs ${needed}.` };
  }
  if (!found) {
    return keyed
      ? { state: 'missing', found, problem: `No master key for ${path}, which holds encrypted secrets: ${fix} No new key was made, as it could not read them.` }
      : { state: 'unkeyed', found, problem: null };
  }
  const matches = fingerprint !== null ? keyFingerprint(found.key) === fingerprint : masterKeyMatches(db, new SecretBox(found.key));
  if (matches === false) {
    return { state: 'wrong', found, problem: `The master key in ${found.source} (fingerprint ${keyFingerprint(found.key)}) is not the one ${path} was created with. ${fix}` };
  }
  return { state: 'ok', found, problem: null };
}

/**
 * Finds the master key and fails fast on the wrong one or none, instead of later on the first
 * secret it cannot decrypt. A key file is created only for a database without encrypted data; the
 * database then records the key's fingerprint (and a check value sealed with it).
 */
function unlock(db: Db, path: string, envValue: string | undefined): SecretBox {
  return atomically(db, () => {
    const check = checkMasterKey(db, path, envValue);
    if (check.problem) throw new Error(check.problem);
    const { key } = check.found ?? createKeyFile(`${path}.key`);
    const box = new SecretBox(key);
    if (meta(db, 'master_key_check') === null) stmt(db, "INSERT INTO meta (key, value) VALUES ('master_key_check', ?)").run(box.seal(KEY_CHECK));
    if (meta(db, 'master_key_fingerprint') === null) stmt(db, "INSERT INTO meta (key, value) VALUES ('master_key_fingerprint', ?)").run(keyFingerprint(key));
    return box;
  });
}

/** Opens the database, applies pending migrations and unlocks encrypted secrets. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const db = openDatabase(options.path, options.synchronous ? { synchronous: options.synchronous } : {});
  try {
    if (options.existing && db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'").get() === undefined) {
      throw new Error(`${options.path} is not a Punchcard database (it has no schema_migrations table); check --db or PUNCHCARD_DB.`);
    }
    const migrations = options.migrations ?? (await bundledMigrations());
    if (options.foreignSchema !== 'report') requireMigrationsSchema(db, migrations, options.path);
    if (options.foreignSchema !== 'report' || schemaDifferences(db, migrations).length === 0) migrate(db, migrations);
    const box = unlock(db, options.path, options.masterKey);
    return { db, box, path: options.path, close: () => db.close() };
  } catch (error) {
    db.close();
    throw error;
  }
}
