/** The events a webhook may subscribe to: the server's EVENT_TYPES (test/admin-forms.test.ts keeps them equal). */
export const EVENT_TYPES = ['member.created', 'member.updated', 'points.awarded', 'points.deducted', 'badge.awarded', 'quest.completed',
  'referral.converted', 'promo.redeemed', 'reward.redeemed'] as const;
