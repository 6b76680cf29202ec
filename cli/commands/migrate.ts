import { Command } from 'commander';
import { openDatabase } from '../../src/db/connection.ts';
import { bundledMigrations, migrate, migrationStatus } from '../../src/db/migrations.ts';
import { requireMigrationsSchema } from '../../src/db/schema-check.ts';
import { dbPath, requireDatabase } from '../context.ts';
import { printTable } from '../output.ts';

export const migrateCommand = new Command('migrate')
  .description('apply pending database migrations (the server also does this at start-up); creates the database if there is none')
  .option('--status', 'list migrations and whether each is applied, without applying any')
  .action(async (options: { status?: boolean }, command: Command) => {
    if (options.status) requireDatabase(dbPath(command));
    const migrations = await bundledMigrations();
    const db = openDatabase(dbPath(command));
    try {
      if (options.status) {
        printTable(migrationStatus(db, migrations).map((m) => ({ ...m, appliedAt: m.appliedAt ?? 'pending' })), ['version', 'name', 'appliedAt']);
        return;
      }
      requireMigrationsSchema(db, migrations, dbPath(command));
      const applied = migrate(db, migrations);
      console.log(applied.length === 0
        ? 'Database is up to date.'
        : `Applied ${applied.length} migration(s): ${applied.map((m) => `${m.version} ${m.name}`).join(', ')}`);
    } finally {
      db.close();
    }
  });
