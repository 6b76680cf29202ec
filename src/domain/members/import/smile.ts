import type { ImportSource } from './columns.ts';

/**
 * Smile.io: its points import template and the files it tells shops to bring from their old
 * provider are `email,points`; its customer export also names the customer and their VIP tier.
 */
export const smile: ImportSource = {
  name: 'smile',
  label: 'Smile',
  columns: {
    email: ['email', 'customer email'],
    balance: ['points', 'points balance'],
    firstName: ['first name'],
    lastName: ['last name'],
    birthday: ['date of birth', 'birthday'],
    level: ['vip tier', 'tier'],
  },
  needs: [['email'], ['balance']],
  recognises: (keys) => keys.has('email') && (keys.has('points') || keys.has('pointsbalance')),
  otherColumns: 'ignore',
};
