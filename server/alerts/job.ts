import { DEFAULT_ALERT_RULES, validateAlertRules, type AlertRules } from "../../lib/alerts/rules";
import { DEFAULT_CLUSTER } from "../../lib/cluster-name";
import { alertStates, saveEvaluation, type AlertEvent, type StoredAlertState } from "../../db/store/alerts";
import { latestVersion } from "../../db/store/control";
import type { Store } from "../../db/store/store";
import { evaluateRule, type AlertState, type Transition } from "./evaluate";
import { observe, Reads } from "./observe";
import type { Outbox, Receiver } from "./outbox";
import { RESEND_MS, type Outgoing } from "./payload";

// One evaluation on the leader: the rules in force (the newest published `alerts` version, else the shipped
// defaults, all off), the states kept from the last evaluation, each rule's figures read and judged, the new states
// and what fired or resolved stored in one transaction, then the deliveries queued (firing and resolved alerts, and
// firing ones again every RESEND_MS). Delivery runs apart: a receiver that is down does not hold evaluation up.

/** The policy kind alert rules are published as (one document for the whole console, stored under "default"). */
export const ALERTS_KIND = "alerts";

export type EvaluationSummary = {
  rules: number;
  firing: number;
  pending: number;
  fired: number;
  resolved: number;
  /** Series left out past a rule's limit. */
  dropped: number;
  /** Rules whose figures could not be read this time (their states are kept as they were). */
  failed: string[];
};

/** The rules in force: the newest published version, or the defaults (a stored document that no longer validates
 * — a rule kind removed since — is read as the defaults too, and said so by the caller's log). */
export async function rulesInForce(s: Store): Promise<{ rules: AlertRules; version: number | null }> {
  const v = await latestVersion(s, DEFAULT_CLUSTER, ALERTS_KIND);
  if (!v) return { rules: DEFAULT_ALERT_RULES, version: null };
  const checked = validateAlertRules(v.document);
  return checked.ok ? { rules: checked.document, version: v.version } : { rules: DEFAULT_ALERT_RULES, version: null };
}

const stored = (a: AlertState, sentAt: number | null): StoredAlertState => ({ ...a, sentAt });

const eventOf = (t: Transition, now: number): AlertEvent => ({
  ts: t.kind === "resolved" ? t.resolvedAt : now,
  rule: t.alert.rule,
  key: t.alert.key,
  kind: t.kind,
  labels: t.alert.labels,
  value: t.kind === "resolved" ? t.lastValue : t.alert.value,
  summary: t.alert.summary,
  link: t.alert.link,
  severity: t.alert.severity,
});

/** Evaluate every rule once at `now`, store the outcome, and queue the deliveries on `outbox` for `receivers`. */
export async function evaluateAlerts(
  s: Store,
  outbox: Outbox,
  receivers: readonly Receiver[],
  now: number,
): Promise<EvaluationSummary> {
  const { rules } = await rulesInForce(s);
  const kept = await alertStates(s);
  const sentAt = new Map(kept.map((k) => [`${k.rule}\u0000${k.key}`, k.sentAt]));
  const reads = new Reads(s, now);
  const states: StoredAlertState[] = [];
  const transitions: Transition[] = [];
  const outgoing: Outgoing[] = [];
  const failed: string[] = [];
  let dropped = 0;
  for (const rule of rules.rules) {
    let observed;
    try {
      observed = rule.enabled ? await observe(rule, reads) : [];
    } catch {
      failed.push(rule.name);
      states.push(...kept.filter((k) => k.rule === rule.name));
      continue;
    }
    const e = evaluateRule(rule, observed, kept, now);
    dropped += e.dropped;
    transitions.push(...e.transitions);
    for (const a of e.states) {
      const last = sentAt.get(`${a.rule}\u0000${a.key}`) ?? null;
      const due = a.state === "firing" && (last === null || now - last >= RESEND_MS);
      if (due) outgoing.push({ alert: a, resolvedAt: null });
      states.push(stored(a, due ? now : a.state === "firing" ? last : null));
    }
  }
  // Rules taken out of the document: what they had firing resolves.
  const names = new Set(rules.rules.map((r) => r.name));
  for (const k of kept)
    if (!names.has(k.rule) && k.state === "firing")
      transitions.push({ kind: "resolved", alert: k, resolvedAt: now, lastValue: null });
  for (const t of transitions) if (t.kind === "resolved") outgoing.push({ alert: t.alert, resolvedAt: t.resolvedAt });
  // Nothing kept, nothing now, nothing changed (every rule off, the usual case): no write.
  if (kept.length || states.length || transitions.length)
    await saveEvaluation(
      s,
      states,
      transitions.map((t) => eventOf(t, now)),
    );
  for (const r of receivers) outbox.enqueue(r, outgoing);
  return {
    rules: rules.rules.filter((r) => r.enabled).length,
    firing: states.filter((x) => x.state === "firing").length,
    pending: states.filter((x) => x.state === "pending").length,
    fired: transitions.filter((t) => t.kind === "firing").length,
    resolved: transitions.filter((t) => t.kind === "resolved").length,
    dropped,
    failed,
  };
}
