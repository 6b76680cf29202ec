/** The pagination every list answers with (`hasMore` is the truth when `total` is a lower bound). */
export interface Page {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}
