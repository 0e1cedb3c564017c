"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ReferenceLine } from "recharts";
import { formatTick } from "@/components/charts/prepare/buckets";
import type { PlacedMark, PolicyMark } from "@/components/charts/prepare/policy-marks";
import { useTRPC } from "@/components/providers/trpc-provider";
import type { RangeSpec } from "@/lib/time-range";

const REFRESH_MS = 2_000;

/** Policy versions published in the range, refreshed with the page when the range is live. */
export function usePolicyMarks(range: RangeSpec): PolicyMark[] {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.annotations.policies.queryOptions({ range }),
    refetchInterval: "preset" in range ? REFRESH_MS : false,
  });
  return q.data ?? [];
}

/** Dashed vertical lines with their label, as children of a recharts chart (called as a function, not a component). */
export function policyMarkLines(marks: readonly PlacedMark[], opts: { labels?: boolean } = {}) {
  const labels = opts.labels ?? true;
  return marks.map((m) => (
    <ReferenceLine
      key={`policy-${m.x}`}
      x={m.x}
      stroke="var(--accent)"
      strokeDasharray="4 3"
      ifOverflow="hidden"
      label={
        labels
          ? {
              value: m.label,
              position: m.side === "left" ? "insideTopRight" : "insideTopLeft",
              fontSize: 10,
              fill: "var(--accent)",
            }
          : undefined
      }
    />
  ));
}

/** The policy changes in the range as a line of links, for charts too small to label. */
export function PolicyMarksNote({ marks, step }: { marks: readonly PolicyMark[]; step: number }) {
  if (marks.length === 0) return null;
  return (
    <p className="sub policy-marks" data-testid="policy-marks">
      {marks.some((m) => m.kind === "alert") ? "Policy changes and alerts" : "Policy changes"} in this range (dashed
      lines):{" "}
      {marks.map((m, i) => (
        <span key={`${m.kind}-${m.version}-${m.ts}`}>
          {i > 0 && " · "}
          <Link href={m.href ?? `/policies?kind=${m.kind}`}>{m.label}</Link> at {formatTick(m.ts, step)}
        </span>
      ))}
    </p>
  );
}
