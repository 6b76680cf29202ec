import type { ImportSource } from './columns.ts';

/**
 * myCred keeps each user's balance in user meta (`mycred_default` for the default point type). The
 * file is one row per user with that balance (docs/operations.md gives the query); another point
 * type is read with `--map balance=its_meta_key`.
 */
export const mycred: ImportSource = {
  name: 'mycred',
  label: 'myCred',
  columns: {
    externalId: ['user id', 'id'],
    email: ['email', 'user email'],
    name: ['name', 'display name'],
    balance: ['mycred default', 'balance', 'creds', 'points'],
  },
  needs: [['externalId', 'email'], ['balance']],
  recognises: (keys) => keys.has('mycreddefault'),
  otherColumns: 'ignore',
  externalIdIsUserId: true,
};
