import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import { backupIntoFolder, listBackups } from '../../db/backup.ts';
import { recordAudit } from '../../domain/audit/audit-log.ts';
import { emptyBody } from '../../schemas/common.ts';
import { AppError } from '../../shared/errors.ts';
import * as admin from '../../schemas/answers/admin.ts';
import { created } from '../route.ts';
import { adminSettings, type ProjectApi } from './api.ts';
import { operatorActor } from '../../domain/operators/operators.ts';

/**
 * Backups of the whole database (every project's: owners only take them) into a `backups` folder
 * beside it, named as `punchcard backup FOLDER` names them: the list shows the nightly timer's
 * copies too, and its retention counts these.
 */
export function backupRoutes({ route, ctx }: ProjectApi): void {
  const settings = () => adminSettings(ctx);

  route('GET', '/backups', { responses: { 200: admin.backupList } }, () => ({
    backups: listBackups(settings().backupDir, settings().databasePath), replication: ctx.replication?.() ?? null,
  }));

  route('POST', '/backups', { body: emptyBody, optionalBody: true, responses: { 201: admin.backup }, errors: [503] }, async ({ projectId, operator, now }) => {
    // VACUUM INTO cannot run inside the route's read snapshot: the copy starts once it has ended (on the next tick).
    await Promise.resolve();
    const { backupDir, databasePath } = settings();
    let file: string;
    let bytes: number;
    try {
      mkdirSync(backupDir, { recursive: true, mode: 0o700 });
      ({ file, bytes } = backupIntoFolder(ctx.db, databasePath, backupDir, now, {}));
    } catch (error) {
      throw new AppError(503, 'Service Unavailable', `The backup could not be written: ${(error as Error).message}`);
    }
    await ctx.write(() => recordAudit(ctx.db, {
      projectId, actor: operatorActor(operator), action: 'POST /backups', target: basename(file), summary: { after: { bytes } },
    }, now));
    return created({ file: basename(file), bytes, createdAt: now.toISOString() });
  });
}
