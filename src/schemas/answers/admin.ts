import * as v from 'valibot';
import { ROLES } from '../../domain/operators/roles.ts';
import { bool, claim, int, member, memberBadge, nullable, pagination, str, success, time } from './common.ts';

// The web admin's answers (docs/admin.md), beside the server API's that it shares.

const role = v.picklist(ROLES);

export const session = v.pipe(v.object({
  operator: v.object({ id: str, email: str, name: nullable(str), totpEnabled: bool }),
  csrfToken: str,
  projects: v.array(v.object({ id: str, name: str, role, timezone: str, ownerTotpRequired: bool })),
}), v.title('AdminSession'));

export const signedOut = v.object({ success });

export const sessions = v.object({
  sessions: v.array(v.object({ id: str, createdAt: time, lastSeenAt: time, expiresAt: time, userAgent: nullable(str), address: nullable(str), current: bool })),
});

export const invite = v.object({ email: str, role: nullable(role), projectName: nullable(str), expiresAt: time, kind: v.picklist(['invite', 'reset']) });

export const totpStarted = v.object({ secret: str, uri: str });
export const totpState = v.object({ totpEnabled: bool });

export const memberProfile = v.object({
  member,
  level: nullable(v.object({ level: int, name: nullable(str) })),
  badges: v.array(memberBadge),
  quests: v.array(v.object({ questId: str, name: str, progress: int, targetCount: int, status: str, completedAt: nullable(str) })),
  claims: v.array(claim),
  referral: v.object({
    referralCode: nullable(str),
    stats: v.object({ totalReferrals: int, pendingReferrals: int, convertedReferrals: int, totalPointsEarned: int }),
  }),
});

const claimListing = v.object({
  id: str,
  reward: v.object({ id: str, name: str, type: str }),
  member: v.object({ externalId: str }),
  pointsSpent: int,
  couponCode: v.optional(str),
  status: str,
  createdAt: str,
  fulfilledAt: nullable(str),
});
export { claimListing };
export const claimList = v.object({ claims: v.array(claimListing), pagination });

export const raffleDrawn = v.object({ rewardId: str, drawnAt: str, entries: int, winners: v.array(v.object({ claimId: str, externalId: str })) });

export const embed = v.object({ snippet: str, publicKey: nullable(str), allowedOrigins: v.array(str) });

const keyInfo = v.object({
  id: str, type: v.picklist(['secret', 'publishable']), prefix: str, createdAt: str, expiresAt: nullable(str), revokedAt: nullable(str), lastUsedAt: nullable(str),
});
export { keyInfo };
export const keyList = v.object({ keys: v.array(keyInfo) });
export const keyCreated = v.object({ key: keyInfo, secret: str });

const delivery = v.object({
  id: str, eventType: str, state: v.picklist(['pending', 'delivered', 'dead']), attempts: int, lastStatus: nullable(int), lastError: nullable(str),
  createdAt: str, nextAttemptAt: nullable(str), deliveredAt: nullable(str),
});
export { delivery };
export const deliveryList = v.object({ deliveries: v.array(delivery), pagination });

export const integrations = v.object({
  commerce: v.object({
    stores: v.array(v.object({ id: str, siteUrl: str, connectedAt: str, lastDeliveryAt: nullable(str), state: v.picklist(['connected']) })),
  }),
  community: v.object({ configured: bool, guildId: nullable(str), botRunning: bool, linkedMembers: int }),
});

const operator = v.object({
  id: str, email: str, name: nullable(str), role, totpEnabled: bool, lastSignInAt: nullable(str), invitedAt: str, pending: bool,
});
export { operator };
export const operatorList = v.object({ operators: v.array(operator) });
export const operatorInvited = v.object({ operator, inviteUrl: nullable(str) });

const backup = v.object({ file: str, bytes: int, createdAt: str });
export { backup };
export const backupList = v.object({
  backups: v.array(backup),
  replication: nullable(v.object({ enabled: bool, replica: nullable(str), state: str, lastSyncAt: nullable(str), lagSeconds: nullable(v.number()) })),
});

export const auditList = v.object({
  entries: v.array(v.object({
    id: int, at: time, actor: v.object({ type: v.picklist(['operator', 'cli', 'api']), id: str, label: str }), action: str, target: str,
    summary: v.object({ before: v.optional(v.unknown()), after: v.optional(v.unknown()) }),
  })),
  pagination,
});
