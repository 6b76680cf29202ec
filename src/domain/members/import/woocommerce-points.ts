import type { ImportSource } from './columns.ts';

/**
 * WooCommerce Points & Rewards keeps a row per award in `{prefix}wc_points_rewards_user_points`,
 * whose points_balance values sum to a customer's balance. The file is those sums, one row per
 * customer (docs/operations.md gives the query); the plugin's "Import existing balances" reads the
 * table itself.
 */
export const woocommercePoints: ImportSource = {
  name: 'woocommerce-points',
  label: 'WooCommerce Points & Rewards',
  columns: {
    externalId: ['user id', 'id', 'customer id'],
    email: ['email', 'user email'],
    name: ['name', 'display name'],
    balance: ['points balance', 'balance', 'points'],
  },
  needs: [['externalId', 'email'], ['balance']],
  recognises: (keys) => keys.has('pointsbalance') && (keys.has('userid') || keys.has('useremail')),
  otherColumns: 'ignore',
  externalIdIsUserId: true,
  refuse: (keys) => (keys.has('orderid') && keys.has('pointsbalance')
    ? 'this is the wc_points_rewards_user_points table itself, one row per award: export each customer\'s balance (its rows summed) with the query in docs/operations.md, "Switching from another programme"'
    : null),
};
