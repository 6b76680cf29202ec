/** The pagination every list answers with (`hasMore` is the truth when `total` is a lower bound). */
export interface Page {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

/** The page of `rows` rows that `window` (its limit and offset) read out of `total`. */
export const pageOf = (total: number, window: { limit: number; offset: number }, rows: number): Page =>
  ({ total, limit: window.limit, offset: window.offset, hasMore: window.offset + rows < total });
