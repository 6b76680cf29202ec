import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { CreatedProject } from '../src/domain/project/projects.ts';

export interface SecretLine {
  label: string;
  value: string;
}

/**
 * Where a command puts secrets it shows only once. A terminal gets them; any other stdout (the
 * systemd journal, a pipe, a CI log) would keep them for good, so they go to a new file, readable by
 * the owner only, beside the database, and stdout gets its path. `--json` always prints them: the
 * caller asked for them on stdout.
 */
export function revealSecrets(dbPath: string, name: string, secrets: SecretLine[], toStdout = process.stdout.isTTY === true, jsonFlag = true):
  { lines: string[]; file: string | null } {
  const width = Math.max(...secrets.map((secret) => secret.label.length));
  const lines = secrets.map((secret) => `  ${secret.label.padEnd(width)}  ${secret.value}`);
  if (toStdout) return { lines, file: null };
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = join(dirname(resolve(dbPath)), `${name}-${stamp}.secrets.txt`);
  writeFileSync(file, `${lines.map((line) => line.trimStart()).join('\n')}\n`, { mode: 0o600, flag: 'wx' });
  return {
    lines: [`  ${secrets.map((secret) => secret.label).join(', ')}: written to ${file} (mode 0600; not printed, stdout is not a terminal).`,
      `  Move them to your secret store, then delete the file.${jsonFlag ? ' Pass --json to print them instead.' : ''}`],
    file,
  };
}

/** A new project's secret key and widget secret (its publishable key is no secret), as revealSecrets shows them, named after the project. */
export const revealProjectSecrets = (dbPath: string, created: CreatedProject, toStdout?: boolean, jsonFlag?: boolean) => revealSecrets(dbPath, created.project.id, [
  { label: 'secret key', value: created.secretKey },
  { label: 'widget secret', value: created.widgetSecret },
], toStdout, jsonFlag);
