import type { CommerceApi } from './api.ts';

export function couponRoutes(_api: CommerceApi): void {
  // POST /api/commerce/coupons: slice 3.
}
