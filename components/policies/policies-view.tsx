"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useMemo, useRef, type KeyboardEvent } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { LoadError } from "@/components/ui/load-error";
import { AlertRulesSection } from "@/components/alerts/rules-section";
import { isPolicyKind, POLICY_KINDS, type PolicyKind } from "@/lib/policies/policies";
import type { Operator, TargetReason } from "./fields";
import { DEFAULT_CLUSTER } from "@/lib/cluster-name";
import { policyScope, scopeLabel, scopeProblem } from "@/lib/policy-scope";
import { PolicyScopeContext } from "./cluster-scope";
import { HistoryPanel } from "./history-panel";
import { PolicyEditor } from "./policy-editor";
import { RolloutPanel } from "./rollout-panel";
import "@/components/ui/cluster-views.css";
import "@/components/ui/decisions.css";

const REFRESH_MS = 2_000;

/** The alert rules' tab: versioned, reviewed and audited like a policy, but one document for the whole console that the
 * dashboard evaluates itself (nothing is pushed to targets). */
const ALERTS_TAB = "alerts";
type Tab = PolicyKind | typeof ALERTS_TAB;
const TITLES: Record<Tab, string> = {
  retention: "Retention",
  autoscaling: "Autoscaling",
  routing: "Routing",
  frontend: "Frontend",
  alerts: "Alert rules",
};
const TABS: readonly Tab[] = [...POLICY_KINDS, ALERTS_TAB];

/** /policies: one tab per kind with its form, live rollout status per target, and version history. */
export function PoliciesView() {
  const trpc = useTRPC();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const asked = params.get("kind") ?? "";
  const tab: Tab = asked === ALERTS_TAB ? ALERTS_TAB : isPolicyKind(asked) ? asked : "retention";
  const kind: PolicyKind | null = tab === ALERTS_TAB ? null : tab;
  // The scope: ?cluster= (a cluster, or cluster@model) and, as the other pages say it, ?model=.
  const askedCluster = policyScope(params.get("cluster") ?? DEFAULT_CLUSTER, params.get("model"));
  const badCluster = scopeProblem(askedCluster);
  const cluster = badCluster ? DEFAULT_CLUSTER : askedCluster;
  const tabs = useRef<Record<string, HTMLButtonElement | null>>({});
  const clusters = useQuery(trpc.policies.clusters.queryOptions());
  const list = useQuery({ ...trpc.policies.list.queryOptions({ cluster }), refetchInterval: REFRESH_MS });
  const rollout = useQuery({ ...trpc.policies.rollout.queryOptions({ cluster }), refetchInterval: REFRESH_MS });
  const targets = useQuery(trpc.policies.targets.list.queryOptions());
  const alertRules = useQuery(trpc.alerts.rules.queryOptions());
  const scope = useMemo(() => {
    const known = clusters.data ?? [DEFAULT_CLUSTER];
    return { cluster, clusters: known.includes(cluster) ? known : [...known, cluster] };
  }, [clusters.data, cluster]);
  const clusterTargets = (targets.data ?? []).filter((t) => t.cluster === cluster).length;
  const me = useQuery(trpc.users.me.queryOptions());
  const operator: Operator = { name: me.data?.name ?? "operator", canEdit: me.data ? me.data.role !== "viewer" : true };

  const select = (k: Tab) => {
    const q = new URLSearchParams(params.toString());
    q.set("kind", k);
    router.replace(`${pathname}?${q.toString()}`, { scroll: false });
  };
  const selectCluster = (c: string) => {
    const q = new URLSearchParams(params.toString());
    q.delete("model");
    if (c === DEFAULT_CLUSTER) q.delete("cluster");
    else q.set("cluster", c);
    router.push(`${pathname}?${q.toString()}`, { scroll: false });
  };
  const onTabKey = (e: KeyboardEvent) => {
    const i = TABS.indexOf(tab);
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    const jump = e.key === "Home" ? 0 : e.key === "End" ? TABS.length - 1 : null;
    if (!step && jump === null) return;
    e.preventDefault();
    const next = TABS[jump ?? (i + step + TABS.length) % TABS.length]!;
    select(next);
    tabs.current[next]?.focus();
  };

  const entries = useMemo(() => (rollout.data ?? []).filter((e) => e.kind === kind), [rollout.data, kind]);
  const reasons = useMemo(() => {
    const out: Partial<Record<PolicyKind, TargetReason[]>> = {};
    for (const e of rollout.data ?? []) {
      if (e.state !== "rejected") continue;
      out[e.kind] = [...(out[e.kind] ?? []), ...e.errors.map((err) => ({ ...err, target: e.targetName }))];
    }
    return out;
  }, [rollout.data]);
  const latestOf = (k: PolicyKind) => list.data?.find((p) => p.kind === k)?.latest ?? null;
  const now = rollout.dataUpdatedAt || list.dataUpdatedAt;

  return (
    <PolicyScopeContext.Provider value={scope}>
      <div className="page-head">
        <div>
          <h1>Policies</h1>
          <div className="sub">
            Versioned documents of one cluster, or of one model of it, pushed to that scope&apos;s targets only; rollout
            status refreshes every 2 s.
            {!operator.canEdit && " You are signed in as a viewer: publishing and rollback need the operator role."}
          </div>
        </div>
        <div className="policies-scope">
          <label htmlFor="policy-cluster">Scope</label>
          <select id="policy-cluster" value={cluster} onChange={(e) => selectCluster(e.target.value)}>
            {scope.clusters.map((c) => (
              <option key={c} value={c}>
                {scopeLabel(c)}
              </option>
            ))}
          </select>
          <Link href={`/policies/audit?cluster=${encodeURIComponent(cluster)}`}>Audit log →</Link>
        </div>
      </div>
      {badCluster && (
        <p className="notice" role="alert">
          &ldquo;{askedCluster.slice(0, 80)}&rdquo; is not a policy scope: {badCluster}. Showing {cluster}.
        </p>
      )}

      <div role="tablist" aria-label="Policy kind" className="policies-tabs" onKeyDown={onTabKey}>
        {TABS.map((k) => {
          const latest = k === ALERTS_TAB ? null : latestOf(k);
          return (
            <button
              key={k}
              ref={(el) => {
                tabs.current[k] = el;
              }}
              type="button"
              role="tab"
              id={`tab-${k}`}
              aria-selected={k === tab}
              // The panels exist once the policies have loaded: before, the tab controls nothing yet.
              aria-controls={list.data || k === ALERTS_TAB ? `panel-${k}` : undefined}
              tabIndex={k === tab ? 0 : -1}
              onClick={() => select(k)}
            >
              {TITLES[k]}
              {k === ALERTS_TAB ? (
                <span className="sub">
                  {alertRules.data ? (alertRules.data.version ? ` v${alertRules.data.version}` : " defaults") : ""}
                </span>
              ) : (
                <span className="sub">{list.data ? (latest ? ` v${latest.version}` : " defaults") : ""}</span>
              )}
            </button>
          );
        })}
      </div>

      {list.isError && (
        <LoadError
          what="policies"
          message={list.error.message}
          stale={Boolean(list.data)}
          onRetry={() => void list.refetch()}
        />
      )}
      {list.isPending && (
        <div className="chart-skeleton skeleton" role="progressbar" aria-busy="true" aria-label="Loading policies" />
      )}

      {list.data &&
        POLICY_KINDS.map((k) => (
          <div
            key={k}
            role="tabpanel"
            id={`panel-${k}`}
            aria-labelledby={`tab-${k}`}
            hidden={k !== kind}
            className="policies-layout"
          >
            <section className="section policies-main" aria-labelledby={`${k}-form-heading`}>
              <h2 id={`${k}-form-heading`}>{TITLES[k]} policy</h2>
              <PolicyEditor
                key={`${cluster}/${k}`}
                kind={k}
                latest={latestOf(k)}
                reasons={reasons[k] ?? []}
                operator={operator}
              />
            </section>
            {k === kind && (
              <aside className="policies-side">
                <section className="section" aria-labelledby="rollout-heading">
                  <h2 id="rollout-heading">Rollout</h2>
                  {rollout.isError && (
                    <LoadError
                      what="rollout status"
                      message={rollout.error.message}
                      stale={Boolean(rollout.data)}
                      onRetry={() => void rollout.refetch()}
                    />
                  )}
                  {rollout.isPending && (
                    <div
                      className="chart-skeleton skeleton"
                      role="progressbar"
                      aria-busy="true"
                      aria-label="Loading rollout status"
                    />
                  )}
                  {rollout.data && (
                    <RolloutPanel
                      entries={entries}
                      now={now}
                      published={latestOf(k) !== null}
                      targets={clusterTargets}
                    />
                  )}
                </section>
                <section className="section" aria-labelledby="history-heading">
                  <h2 id="history-heading">History</h2>
                  <HistoryPanel key={`${cluster}/${k}`} kind={k} now={now} operator={operator} />
                </section>
              </aside>
            )}
          </div>
        ))}
      <div role="tabpanel" id={`panel-${ALERTS_TAB}`} aria-labelledby={`tab-${ALERTS_TAB}`} hidden={tab !== ALERTS_TAB}>
        {tab === ALERTS_TAB && (
          <>
            <p className="sub">
              Alert rules are one set for the whole console, whatever the scope above: the dashboard evaluates them
              itself and sends what fires to the receivers on the <Link href="/sources">Sources</Link> page; nothing is
              pushed to targets. What fires now and the history are on the <Link href="/alerts">Alerts</Link> page.
            </p>
            <AlertRulesSection headingId="alerts-form-heading" />
          </>
        )}
      </div>
    </PolicyScopeContext.Provider>
  );
}
