"use client";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo, useRef } from "react";
import { parseScope, type Scope } from "@/lib/scope";

/** A change of scope: each field named is set (a value) or cleared (undefined); fields not named are kept. */
export type ScopeChange = { cluster?: string | undefined; model?: string | undefined };

/** The page's cluster and model scope, read from and written to the URL beside the time range. */
export function useScope(): [Scope, (change: ScopeChange) => void, string | null] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  // The query last asked for: a second change before the URL catches up (cluster, then model) builds on the first.
  const latest = useRef({ from: params, query: params.toString() });
  if (latest.current.from !== params) latest.current = { from: params, query: params.toString() };
  const { scope, problem } = useMemo(() => parseScope(params), [params]);
  const setScope = useCallback(
    (change: ScopeChange) => {
      const q = new URLSearchParams(latest.current.query);
      for (const k of ["cluster", "model"] as const) {
        if (!(k in change)) continue;
        const v = change[k];
        if (v) q.set(k, v);
        else q.delete(k);
      }
      latest.current = { ...latest.current, query: q.toString() };
      router.replace(`${pathname}?${q.toString()}`, { scroll: false });
    },
    [pathname, router],
  );
  return [scope, setScope, problem];
}
