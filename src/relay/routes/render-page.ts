// The collection envelope `{data, pagination: {has_more, next_cursor}}`, assembled from pre-rendered rows.
export function renderPage(
  items: readonly string[],
  hasMore: boolean,
  nextCursor: string | undefined,
): string {
  const pagination =
    nextCursor === undefined
      ? `{"has_more":${hasMore}}`
      : `{"has_more":${hasMore},"next_cursor":${JSON.stringify(nextCursor)}}`;
  return `{"data":[${items.join(',')}],"pagination":${pagination}}`;
}
