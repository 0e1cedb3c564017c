import { renderSummary, type AlertRule } from "../../lib/alerts/rules";
import type { StoredAlertState } from "../../db/store/alerts";

// One evaluation of one rule: the figures read for it (one per series: a worker, a cluster and model, a source, a
// target) against the states kept from the last evaluation. Pending until the condition has held `for_seconds`,
// then firing; a pending series whose condition stops is dropped without a word (flapping respects `for`), a firing
// one resolves. The states are plain data: the leader stores them after each evaluation, so a new leader goes on
// from them and sends no second page. Pure.

/** Series one rule may keep at once; past it the rest are left out and counted (a runaway label set). */
export const MAX_SERIES_PER_RULE = 1_000;

/** One series' figure at this evaluation (null: no data, which neither trips nor holds a condition). */
export type Observation = {
  /** Stable within the rule: the series' labels joined. */
  key: string;
  labels: Record<string, string>;
  value: number | null;
  /** For event metrics (no threshold): whether the event is present now. */
  present?: boolean;
  /** The page that shows the figure. */
  link: string;
};

/** A pending or firing series as evaluation keeps it: the stored state without when it was last sent. */
export type AlertState = Omit<StoredAlertState, "sentAt">;

export type Transition =
  | { kind: "firing"; alert: AlertState }
  | { kind: "resolved"; alert: AlertState; resolvedAt: number; lastValue: number | null };

export type RuleEvaluation = {
  /** The states to keep (pending and firing). */
  states: AlertState[];
  /** What changed for the receivers: alerts that started firing and firing ones that resolved. */
  transitions: Transition[];
  /** Observations left out past MAX_SERIES_PER_RULE. */
  dropped: number;
};

/** Whether an observation meets the rule's condition. */
export function trips(rule: AlertRule, o: Observation): boolean {
  if (rule.threshold === null) return o.present === true;
  if (o.value === null || !Number.isFinite(o.value)) return false;
  return rule.metric === "hit_rate" ? o.value < rule.threshold : o.value > rule.threshold;
}

const shown = (rule: AlertRule, v: number | null) =>
  v === null
    ? "—"
    : rule.metric === "hit_rate" || rule.metric === "kv_utilization"
      ? `${(v * 100).toFixed(1)} %`
      : Number.isInteger(v)
        ? String(v)
        : v.toFixed(1);

/**
 * Evaluate `rule` at `now` over `observed`, given the states kept for it (`kept`, from the last evaluation). A
 * disabled rule resolves whatever it had firing and keeps nothing.
 */
export function evaluateRule(
  rule: AlertRule,
  observed: readonly Observation[],
  kept: readonly AlertState[],
  now: number,
): RuleEvaluation {
  const before = new Map(kept.filter((s) => s.rule === rule.name).map((s) => [s.key, s]));
  const states: AlertState[] = [];
  const transitions: Transition[] = [];
  const seen = new Set<string>();
  const considered = rule.enabled ? observed.slice(0, MAX_SERIES_PER_RULE) : [];
  for (const o of considered) {
    if (seen.has(o.key)) continue;
    seen.add(o.key);
    const prev = before.get(o.key);
    if (!trips(rule, o)) {
      if (prev?.state === "firing")
        transitions.push({ kind: "resolved", alert: prev, resolvedAt: now, lastValue: o.value });
      continue;
    }
    const activeAt = prev?.activeAt ?? now;
    const vars = {
      rule: rule.name,
      value: shown(rule, o.value),
      threshold: rule.threshold === null ? undefined : shown(rule, rule.threshold),
      ...o.labels,
    };
    const held = now - activeAt >= rule.for_seconds * 1000;
    const state: AlertState = {
      rule: rule.name,
      key: o.key,
      labels: o.labels,
      state: prev?.state === "firing" || held ? "firing" : "pending",
      activeAt,
      firedAt: prev?.firedAt ?? (held ? now : null),
      value: o.value,
      summary: renderSummary(rule.summary, vars),
      link: o.link,
      severity: rule.severity,
    };
    states.push(state);
    if (state.state === "firing" && prev?.state !== "firing") transitions.push({ kind: "firing", alert: state });
  }
  // Series that went away (a worker gone, a disabled rule): firing ones resolve, pending ones are dropped.
  for (const [key, prev] of before)
    if (!seen.has(key) && prev.state === "firing")
      transitions.push({ kind: "resolved", alert: prev, resolvedAt: now, lastValue: null });
  return { states, transitions, dropped: Math.max(0, (rule.enabled ? observed.length : 0) - considered.length) };
}
