import { Command } from 'commander';
import { revokeMetricsToken, rotateMetricsToken } from '../../src/domain/metrics/metrics-token.ts';
import { dbPath, withStore } from '../context.ts';
import { printJson } from '../output.ts';
import { revealSecrets } from '../secret-output.ts';

export const metricsCommand = new Command('metrics').description('who may read /metrics (Prometheus)');

metricsCommand.command('token')
  .description('create the metrics token that reads /metrics, or replace it (the old one stops working at once, even on a running server); '
    + 'printed once, only its hash is stored; on a stdout that is not a terminal it goes to a new 0600 file beside the database')
  .option('--revoke', 'remove the token instead: /metrics then answers 404 (unless serve --metrics-token sets one)')
  .option('--json', 'print JSON')
  .action((options: { revoke?: boolean; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    if (options.revoke) {
      const revoked = revokeMetricsToken(db);
      if (options.json) return printJson({ revoked });
      console.log(revoked ? 'The metrics token is removed; /metrics answers 404 unless the server has --metrics-token.' : 'There was no metrics token.');
      return;
    }
    const { token, replaced } = rotateMetricsToken(db);
    if (options.json) return printJson({ token, replaced });
    const { lines } = revealSecrets(dbPath(command), 'metrics-token', [{ label: 'metrics token', value: token }]);
    console.log(`${replaced ? 'A new metrics token replaces the old one, which no longer reads /metrics.' : 'Metrics token created.'}`
      + ` Prometheus sends it as "Authorization: Bearer <token>"; it is shown only now:\n${lines.join('\n')}`);
  }));
