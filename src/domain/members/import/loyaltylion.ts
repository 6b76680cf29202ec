import type { ImportSource } from './columns.ts';

/**
 * LoyaltyLion's customer export keeps approved points (the balance a customer can spend), pending
 * points (waiting out an order's approval period) and spent points apart, with the customer's tier.
 * Customers are matched by email: its merchant_id is the id in whichever platform ran it (map it
 * with `--map externalId=merchant_id` where that is the shop's own id).
 */
export const loyaltylion: ImportSource = {
  name: 'loyaltylion',
  label: 'LoyaltyLion',
  columns: {
    email: ['email'],
    balance: ['points approved'],
    pending: ['points pending'],
    level: ['tier', 'tier name'],
    firstName: ['first name'],
    lastName: ['last name'],
    birthday: ['birthday', 'date of birth'],
    joinedAt: ['enrolled at', 'enrolled'],
  },
  // Lifetime points spent there: nothing to bring, the balance is what is left.
  unused: ['points spent'],
  needs: [['email'], ['balance']],
  recognises: (keys) => keys.has('pointsapproved'),
  otherColumns: 'ignore',
};
