import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { createProject, getProject, type CreatedProject, type Project } from '../project/projects.ts';
import type { SecretBox } from '../../shared/secrets.ts';

/** The name `seed --demo` gives the project it creates for the demo shop. */
export const DEMO_PROJECT_NAME = 'Demo shop';

/**
 * The demo shop's project: the one `seed --demo` created and marked (projects.demo). /demo signs
 * its visitors into this project only, never into a real one; null while there is none.
 */
export function demoProject(db: Db): Project | null {
  const id = stmt<string>(db, 'SELECT id FROM projects WHERE demo = 1').pluck().get();
  return id === undefined ? null : getProject(db, id);
}

/** Creates the demo project, marked as such; at most one exists (a unique index holds it). */
export function createDemoProject(db: Db, box: SecretBox, now: Date): CreatedProject {
  return atomically(db, () => {
    const created = createProject(db, box, { name: DEMO_PROJECT_NAME }, now);
    stmt(db, 'UPDATE projects SET demo = 1 WHERE id = ?').run(created.project.id);
    return created;
  });
}

/** What `serve --demo` says when the database has no demo project. */
export const NO_DEMO_PROJECT = '--demo serves the demo shop of the demo project, and this database has none. '
  + 'Create it with "punchcard seed --demo" (a separate "Demo shop" project with a demo catalog and demo members; '
  + 'your own projects are not touched), then start again.';
