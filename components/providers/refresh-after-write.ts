import type { InvalidateQueryFilters, QueryClient } from "@tanstack/react-query";

/**
 * Refetch the queries a write changed, so that they show it. `invalidateQueries` alone does not when a matching query
 * is still on its first load: React Query then hands back the fetch already in flight, which may have read the store
 * before the write, and the page keeps that answer until some later refetch (an admin who invited a user while the
 * list was loading did not see the new row). Cancelling first drops such a fetch, so the refetch starts after the
 * write.
 */
export async function refreshAfterWrite(qc: QueryClient, filters: InvalidateQueryFilters): Promise<void> {
  await qc.cancelQueries(filters);
  await qc.invalidateQueries(filters);
}
