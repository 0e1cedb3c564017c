"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { LoadError } from "@/components/ui/load-error";
import { CONFIGURED_KINDS, type SourceInput } from "@/lib/sources/config";
import { IngestHelp } from "./ingest-help";
import { SourceForm } from "./source-form";
import {
  issuesToErrors,
  KIND_LABELS,
  newSourceValues,
  sourceToValues,
  type FieldErrors,
  type SourceFormValues,
} from "./source-form-model";
import { SourcesTable } from "./sources-table";
import { StorageCard } from "./storage-card";
import { TargetsSection } from "./targets-section";
import { ReceiversSection } from "@/components/alerts/receivers-section";
import { TraceUpload } from "./trace-upload";
import "@/components/ui/cluster-views.css";
import "@/components/ui/decisions.css";
import { refreshAfterWrite } from "@/components/providers/refresh-after-write";
import "./sources.css";

const REFRESH_MS = 2_000;
type Issues = { issues?: { path: string; message: string }[] | null } | undefined;

/** /sources: what is connected and its health, add/edit/remove sources, how to send, trace upload, policy targets. */
export function SourcesView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery({ ...trpc.sources.list.queryOptions(), refetchInterval: REFRESH_MS });
  const [form, setForm] = useState<{ values: SourceFormValues; editing: boolean } | null>(null);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [confirming, setConfirming] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const invalidate = () => refreshAfterWrite(queryClient, { queryKey: trpc.sources.pathKey() });
  const upsert = useMutation(
    trpc.sources.upsert.mutationOptions({
      onSuccess: (res) => {
        setForm(null);
        setSaved(`Saved source ${res.id}; it starts within a moment.`);
        void invalidate();
      },
      onError: (err) => setServerErrors({ form: err.message, ...issuesToErrors((err.data as Issues)?.issues ?? []) }),
    }),
  );
  const remove = useMutation(
    trpc.sources.remove.mutationOptions({
      onSuccess: (res) => {
        setConfirming(null);
        setSaved(`Removed source ${res.id}.`);
        void invalidate();
      },
    }),
  );
  const open = (values: SourceFormValues, editing: boolean) => {
    setServerErrors({});
    setSaved(null);
    setForm({ values, editing });
  };
  const rows = list.data;
  const now = list.dataUpdatedAt || Date.now();

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Sources</h1>
          <div className="sub">
            <span className="live">Live · refreshes every 2 s</span>
          </div>
        </div>
        {!form && (
          <div className="sources-add" role="group" aria-label="Add a source">
            {CONFIGURED_KINDS.map((k) => (
              <button key={k} className="button" type="button" onClick={() => open(newSourceValues(k), false)}>
                Add {KIND_LABELS[k]}
              </button>
            ))}
          </div>
        )}
      </div>

      {saved && (
        <p className="sources-ok" role="status">
          {saved}
        </p>
      )}
      {remove.isError && (
        <p className="sources-error" role="alert">
          Could not remove: {remove.error.message}
        </p>
      )}
      {form && (
        <SourceForm
          key={`${form.values.kind}-${form.values.id}`}
          defaultValues={form.values}
          editing={form.editing}
          serverErrors={serverErrors}
          pending={upsert.isPending}
          onCancel={() => setForm(null)}
          onSubmit={(source: SourceInput) => {
            setServerErrors({});
            upsert.mutate({ source, create: !form.editing });
          }}
        />
      )}

      <section className="section" aria-labelledby="sources-title">
        <h2 id="sources-title">Connected sources</h2>
        {list.isError && (
          <LoadError
            what="the sources"
            message={list.error.message}
            stale={Boolean(rows)}
            onRetry={() => void list.refetch()}
          />
        )}
        {list.isPending && (
          <div className="table-wrap skeleton" role="progressbar" aria-busy="true" aria-label="Loading sources" />
        )}
        {rows && rows.length === 0 && (
          <p className="notice" role="status">
            Nothing is connected yet. Add a Prometheus target, a KV events publisher or a trace directory above, or send
            telemetry to the ingest URL below.
          </p>
        )}
        {rows && rows.length > 0 && (
          <SourcesTable
            rows={rows}
            now={now}
            confirming={confirming}
            onEdit={(r) => open(sourceToValues(r), true)}
            onRemove={setConfirming}
            onConfirm={(id) => remove.mutate({ id })}
            onCancelRemove={() => setConfirming(null)}
          />
        )}
      </section>

      <section className="section" aria-labelledby="send-title">
        <h2 id="send-title">Send telemetry</h2>
        <IngestHelp />
      </section>

      <section className="section" aria-labelledby="upload-title">
        <h2 id="upload-title">Upload Dynamo traces</h2>
        <TraceUpload />
      </section>

      <TargetsSection />
      <ReceiversSection />

      <StorageCard />
    </>
  );
}
