"use client";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { parseRange, rangeQuery, type RangeSpec } from "@/lib/time-range";

/** The page's time range, read from and written to the URL so links reproduce the view. */
export function useRange(): [RangeSpec, (next: RangeSpec) => void] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const spec = useMemo(() => parseRange(params), [params]);
  const setSpec = useCallback(
    (next: RangeSpec) => {
      const q = new URLSearchParams(params.toString());
      q.delete("range");
      q.delete("from");
      q.delete("to");
      for (const [k, v] of new URLSearchParams(rangeQuery(next))) q.set(k, v);
      router.replace(`${pathname}?${q.toString()}`, { scroll: false });
    },
    [params, pathname, router],
  );
  return [spec, setSpec];
}
