"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { RulesEditor } from "@/components/alerts/rules-editor";
import { RulesVersions } from "@/components/alerts/rules-versions";
import { useTRPC } from "@/components/providers/trpc-provider";
import { LoadError } from "@/components/ui/load-error";

/**
 * The alert rules in force as a form with their versions: on the Alerts page and as the "Alert rules" tab of the
 * policy editor. One document for the whole console, evaluated by the dashboard (not pushed to targets).
 */
export function AlertRulesSection({ headingId }: { headingId: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.alerts.rules.queryOptions());
  const [published, setPublished] = useState<number | null>(null);
  return (
    <section className="section" aria-labelledby={headingId}>
      <h2 id={headingId}>Rules in force</h2>
      {q.isError && (
        <LoadError what="alert rules" message={q.error.message} stale={false} onRetry={() => void q.refetch()} />
      )}
      {q.isPending && (
        <div className="chart-skeleton skeleton" role="progressbar" aria-busy="true" aria-label="Loading alert rules" />
      )}
      {q.data && (
        <>
          <p className="sub">
            {q.data.version === null ? "The shipped defaults, every one off." : `Version ${q.data.version}.`} One set
            for the whole console, evaluated on the leader every few seconds; a rule fires once its condition has held
            for its “for”. Switch rules on, set their thresholds and scope (empty: any), and publish them as the next
            version; each version is kept and audited.
          </p>
          {published !== null && published === q.data.version && (
            <p role="status" className="policies-ok">
              Published alert rules version {published}.
            </p>
          )}
          <RulesEditor
            key={q.data.version ?? 0}
            version={q.data.version}
            rules={q.data.rules}
            onPublished={setPublished}
          />
          <RulesVersions latest={q.data.version} />
        </>
      )}
    </section>
  );
}
