import { createLogger } from '../../src/shared/log.ts';
import { systemClock } from '../../src/shared/clock.ts';
import { httpSink, startGatewayBot } from '../../src/integrations/community/gateway-bot.ts';

/**
 * `punchcard community bot`: the gateway bot as its own process, sending signed events to a
 * server (like any other sender), so it can run apart from the server or beside an older one.
 */
export async function botAction(options: { url: string; guild?: string; secret?: string }): Promise<void> {
  const token = process.env.PUNCHCARD_DISCORD_BOT_TOKEN;
  const guild = options.guild ?? process.env.PUNCHCARD_COMMUNITY_GUILD_ID;
  const secret = options.secret ?? process.env.PUNCHCARD_COMMUNITY_SECRET;
  if (!token) throw new Error('Set PUNCHCARD_DISCORD_BOT_TOKEN to the bot token from the Discord Developer Portal (docs/discord.md).');
  if (!guild) throw new Error('Name the guild with --guild or PUNCHCARD_COMMUNITY_GUILD_ID.');
  if (!secret) throw new Error('Give the community webhook secret with PUNCHCARD_COMMUNITY_SECRET (or --secret).');
  const log = createLogger((process.env.PUNCHCARD_LOG as 'info' | 'error' | 'silent' | undefined) ?? 'info');
  const bot = await startGatewayBot({ token, sink: httpSink(options.url, guild, secret, log), log, clock: systemClock,
    apiUrl: process.env.PUNCHCARD_DISCORD_API_URL || undefined });
  const stop = () => {
    void bot.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  log.info(`Sending guild ${guild}'s activity to ${options.url}. Ctrl-C stops.`);
}
