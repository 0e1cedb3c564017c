"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { serverFieldErrors } from "@/components/policies/drafts";
import type { PolicyKind } from "@/lib/policies/policies";
import { PREVIEW_SPANS, previewWindow, type SpanId } from "./prepare";
import { PreviewResultView } from "./preview-result";
import { RefusalNotice, type Refusal } from "@/components/policies/refusal-notice";
import { usePolicyScope } from "@/components/policies/cluster-scope";

const POLL_MS = 500;

/**
 * "Preview on the last hour" beside the review diff: replays the chosen window of the page's cluster under the reviewed
 * document in a worker thread on the server, with its place in the queue, a progress bar and a cancel button; the newest stored
 * result for this document shows at once.
 */
export function PreviewPanel({ kind, document, canRun }: { kind: PolicyKind; document: unknown; canRun: boolean }) {
  const trpc = useTRPC();
  const [span, setSpan] = useState<SpanId>("1h");
  const [jobId, setJobId] = useState<string | null>(null);
  const [refused, setRefused] = useState<Refusal | null>(null);
  // The policies page's cluster: its recorded traffic is what the preview replays.
  const { cluster } = usePolicyScope();
  const stored = useQuery({ ...trpc.previews.stored.queryOptions({ kind, document, cluster }), enabled: canRun });
  const start = useMutation(
    trpc.previews.start.mutationOptions({
      onSuccess: (job) => {
        setRefused(null);
        setJobId(job.id);
      },
      onError: (err) => setRefused({ message: err.message, errors: serverFieldErrors(err.data as never) }),
    }),
  );
  const status = useQuery({
    ...trpc.previews.status.queryOptions({ id: jobId ?? "" }),
    enabled: jobId !== null,
    refetchInterval: (q) => (q.state.data && !["queued", "running"].includes(q.state.data.status) ? false : POLL_MS),
  });
  const cancel = useMutation(trpc.previews.cancel.mutationOptions({ onSuccess: () => void status.refetch() }));
  const job = jobId ? (status.data ?? start.data ?? null) : null;
  const active = job !== null && (job.status === "queued" || job.status === "running");
  const result = job?.status === "done" ? job.result : (stored.data ?? null);
  const label = PREVIEW_SPANS.find((s) => s.id === span)!.label.toLowerCase();

  return (
    <section className="preview-panel" aria-labelledby={`${kind}-preview-heading`}>
      <h4 id={`${kind}-preview-heading`}>Preview</h4>
      <div className="policies-actions">
        <label htmlFor={`${kind}-preview-window`}>
          Preview window{" "}
          <select
            id={`${kind}-preview-window`}
            value={span}
            onChange={(e) => setSpan(e.target.value as SpanId)}
            disabled={active}
          >
            {PREVIEW_SPANS.map((s) => (
              <option key={s.id} value={s.id}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="button"
          disabled={!canRun || active || start.isPending}
          onClick={() => start.mutate({ kind, document, window: previewWindow(span, Date.now()), scope: { cluster } })}
        >
          Preview on the {label}
        </button>
        {active && (
          <button type="button" className="button" onClick={() => cancel.mutate({ id: job.id })}>
            Cancel preview
          </button>
        )}
      </div>
      {!canRun && <p className="sub">Previews need the operator role.</p>}
      {job?.status === "queued" && (
        <p role="status" data-testid="preview-queued">
          Queued: place {job.place} (two previews run at once).
        </p>
      )}
      {job?.status === "running" && (
        <p role="status">
          <label htmlFor={`${kind}-preview-progress`}>Replaying </label>
          <progress id={`${kind}-preview-progress`} max={1} value={job.progress} aria-label="Preview progress" />{" "}
          {Math.round(job.progress * 100)}%
        </p>
      )}
      {job?.status === "cancelled" && <p role="status">Preview cancelled.</p>}
      {job?.status === "failed" && (
        <p role="alert" className="policies-error">
          Preview failed: {job.error}
        </p>
      )}
      {refused && <RefusalNotice refused={refused} />}
      {result && <PreviewResultView result={result} />}
    </section>
  );
}
