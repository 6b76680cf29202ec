import { accountRoutes } from './account.ts';
import { analyticsRoutes } from './analytics.ts';
import { auditRoutes } from './audit.ts';
import { backupRoutes } from './backups.ts';
import { catalogRoutes } from './catalog.ts';
import { claimRoutes } from './claims.ts';
import { integrationRoutes } from './integrations.ts';
import { keyRoutes } from './keys.ts';
import { memberRoutes } from './members.ts';
import { operatorRoutes } from './operators.ts';
import { projectRoutes } from './project.ts';
import { webhookRoutes } from './webhooks.ts';

/** /api/admin without a project: signing in, sessions, invites, the operator's account. */
export const accountResources = [accountRoutes];

/** /api/admin/projects/:projectId: one file per resource; a new one is one more entry here. */
export const projectResources = [analyticsRoutes, memberRoutes, catalogRoutes, claimRoutes, projectRoutes, keyRoutes, webhookRoutes, integrationRoutes, operatorRoutes,
  backupRoutes, auditRoutes];
