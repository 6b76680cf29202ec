import { Command } from 'commander';
import { drawRaffle, fulfilClaim, FULFILMENT_STATUSES, listClaims } from '../../src/domain/rewards/claims.ts';
import { withStore } from '../context.ts';
import { parsePositiveInt, printJson, printTable } from '../output.ts';

export const claimsCommand = new Command('claims').description('reward claims, and a PHYSICAL or CUSTOM claim\'s fulfilment');

claimsCommand.command('list')
  .description('list claims, newest first')
  .requiredOption('--project <projectId>', 'project')
  .option('--reward <rewardId>', "only this reward's claims")
  .option('--status <status>', 'only claims with this status (COMPLETED, PENDING, SHIPPED, DELIVERED, ENTERED, WON, LOST)')
  .option('--limit <n>', 'at most this many', '100')
  .option('--json', 'print JSON')
  .action((options: { project: string; reward?: string; status?: string; limit: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const result = listClaims(db, options.project, { rewardId: options.reward, status: options.status?.toUpperCase(), limit: parsePositiveInt(options.limit, '--limit') });
    if (options.json) return printJson(result);
    printTable(result.claims.map((claim) => ({ ...claim, reward: claim.reward.name, type: claim.reward.type })),
      ['id', 'reward', 'type', 'externalId', 'pointsSpent', 'status', 'couponCode', 'createdAt']);
  }));

claimsCommand.command('fulfil')
  .description('set the fulfilment status of a PHYSICAL or CUSTOM claim')
  .argument('<claimId>')
  .requiredOption('--project <projectId>', 'project')
  .option('--status <status>', `${FULFILMENT_STATUSES.join(', ')}`, 'DELIVERED')
  .option('--json', 'print JSON')
  .action((claimId: string, options: { project: string; status: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const status = options.status.toUpperCase();
    if (!(FULFILMENT_STATUSES as readonly string[]).includes(status)) throw new Error(`--status must be one of ${FULFILMENT_STATUSES.join(', ')} (got "${options.status}")`);
    const claim = fulfilClaim(db, options.project, claimId, status as (typeof FULFILMENT_STATUSES)[number], new Date());
    if (options.json) return printJson(claim);
    console.log(`Claim ${claim.id} is ${claim.status}.`);
  }));

/** `punchcard rewards draw`: joins the generated rewards command group. */
export function addRaffleDraw(rewards: Command): void {
  rewards.command('draw')
    .description('draw the winners of a RAFFLE reward with a cryptographic RNG; a raffle is drawn once')
    .argument('<rewardId>')
    .requiredOption('--project <projectId>', 'project')
    .requiredOption('--winners <n>', 'how many winners (at most one win per member)')
    .option('--json', 'print JSON')
    .action((rewardId: string, options: { project: string; winners: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
      const draw = drawRaffle(db, options.project, rewardId, parsePositiveInt(options.winners, '--winners'), new Date());
      if (options.json) return printJson(draw);
      console.log(`Drew ${draw.winners.length} winner(s) from ${draw.entries} entries:`);
      printTable(draw.winners, ['claimId', 'externalId']);
    }));
}
