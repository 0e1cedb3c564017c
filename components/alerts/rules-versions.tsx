"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import { refreshAfterWrite } from "@/components/providers/refresh-after-write";

/** The published versions of the alert rules, each earlier one with a rollback (operators; audited). */
export function RulesVersions({ latest }: { latest: number | null }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const versions = useQuery(trpc.alerts.versions.queryOptions());
  const rollback = useMutation(
    trpc.alerts.rollbackRules.mutationOptions({
      onSuccess: () => void refreshAfterWrite(qc, { queryKey: trpc.alerts.pathKey() }),
    }),
  );
  const rows = versions.data ?? [];
  if (rows.length === 0) return null;
  return (
    <details className="sub">
      <summary>Versions of the rules ({rows.length})</summary>
      <ul>
        {rows.map((v) => (
          <li key={v.version} data-testid={`rules-version-${v.version}`}>
            v{v.version} by {v.author} at {new Date(v.createdAt).toLocaleString()}
            {v.comment ? `: ${v.comment}` : ""}
            {v.version === latest ? (
              " (in force)"
            ) : latest !== null ? (
              <>
                {" "}
                <button
                  className="button"
                  type="button"
                  disabled={rollback.isPending}
                  onClick={() => rollback.mutate({ to: v.version, baseVersion: latest })}
                >
                  Roll back to v{v.version}
                </button>
              </>
            ) : null}
          </li>
        ))}
      </ul>
      {rollback.isError && (
        <p role="alert" className="policies-error">
          Not rolled back: {rollback.error.message}
        </p>
      )}
    </details>
  );
}
