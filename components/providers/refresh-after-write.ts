import type { InvalidateQueryFilters, QueryClient } from "@tanstack/react-query";

/**
 * Refetch the queries a write changed, so that they show it. `invalidateQueries` alone does not when a matching query
 * is still on its first load: React Query then hands back the fetch already in flight, which may have read the store
 * before the write, and the page keeps that answer until some later refetch (an admin who invited a user while the
 * list was loading did not see the new row). Such first loads are cancelled first, so the refetch starts after the
 * write; a query that has data is left to `invalidateQueries`, which already starts a fresh fetch for it.
 */
export async function refreshAfterWrite(qc: QueryClient, filters: InvalidateQueryFilters): Promise<void> {
  const { predicate } = filters;
  await qc.cancelQueries({
    ...filters,
    predicate: (q) => q.state.data === undefined && q.state.fetchStatus === "fetching" && (predicate?.(q) ?? true),
  });
  await qc.invalidateQueries(filters);
}
