import type { AutoscalingPolicy } from "../../lib/policies/policies";

// The planner's decision for one role at one adjustment tick, as a pure function of what it
// observed. Prefill workers scale on the prefill queue (seconds of queued uncached prefill work per
// worker); decode and aggregated workers on KV utilization (blocks in use by requests / total).

export type PlannerRole = "prefill" | "decode" | "aggregated";
export type PlannerMetric = "prefill_queue" | "decode_kv_utilization";

export type PlannerInput = {
  role: PlannerRole;
  /** Mean of the metric over the interval, or null when no sample was taken. */
  observed: number | null;
  /** Workers of this role that count (ready or starting, not draining). */
  replicas: number;
  /** GPUs in use by all workers (one per worker, draining included). */
  gpusInUse: number;
  policy: AutoscalingPolicy;
  now: number;
  /** When this role was last scaled (ms), or null. */
  lastChangeAt: number | null;
  /** Hard limit of the simulator, below any policy budget. */
  maxWorkers: number;
};

export type PlannerDecision = {
  role: PlannerRole;
  metric: PlannerMetric;
  observed: number;
  scale_up_threshold: number;
  scale_down_threshold: number;
  action: "scale_up" | "scale_down" | "none";
  replicas_before: number;
  replicas_after: number;
  reason: string;
};

/** Thresholds of a role under a policy. */
export function thresholds(
  role: PlannerRole,
  policy: AutoscalingPolicy,
): { metric: PlannerMetric; up: number; down: number } {
  if (role === "prefill")
    return { metric: "prefill_queue", up: policy.prefill.queue_scale_up, down: policy.prefill.queue_scale_down };
  return { metric: "decode_kv_utilization", up: policy[role].kv_scale_up, down: policy[role].kv_scale_down };
}

/** Decide to scale one role up or down by one, or not, and say why. */
export function decide(input: PlannerInput): PlannerDecision {
  const { role, replicas, policy } = input;
  const { metric, up, down } = thresholds(role, policy);
  const observed = input.observed ?? 0;
  const limits = policy[role];
  const label =
    metric === "prefill_queue" ? "prefill queue" : role === "aggregated" ? "KV utilization" : "decode KV utilization";
  const seen = `${label} ${fmtAgainst(observed, observed > up ? up : observed < down ? down : observed)}`;
  const base = {
    role,
    metric,
    observed: round4(observed),
    scale_up_threshold: up,
    scale_down_threshold: down,
    replicas_before: replicas,
  };
  const none = (reason: string): PlannerDecision => ({
    ...base,
    action: "none",
    replicas_after: replicas,
    reason: `no change: ${reason}`,
  });
  const act = (action: "scale_up" | "scale_down", reason: string): PlannerDecision => ({
    ...base,
    action,
    replicas_after: replicas + (action === "scale_up" ? 1 : -1),
    reason,
  });

  if (replicas < limits.min_replicas) {
    if (input.gpusInUse >= policy.max_gpu_budget)
      return none(`below min_replicas ${limits.min_replicas} but the GPU budget ${policy.max_gpu_budget} is used`);
    return act("scale_up", `scale up: ${replicas} replicas below min_replicas ${limits.min_replicas}`);
  }
  if (replicas > limits.max_replicas)
    return act("scale_down", `scale down: ${replicas} replicas above max_replicas ${limits.max_replicas}`);
  if (input.observed === null) return none("no samples in this interval");
  if (input.lastChangeAt !== null) {
    const left = input.lastChangeAt + policy.grace_period_seconds * 1000 - input.now;
    if (left > 0)
      return none(
        `${seen}; grace period after the last change (${Math.ceil(left / 1000)} s of ${policy.grace_period_seconds} s left)`,
      );
  }
  if (observed > up) {
    if (replicas >= limits.max_replicas)
      return none(`${seen} above ${fmt(up)} but already at max_replicas ${limits.max_replicas}`);
    if (input.gpusInUse >= policy.max_gpu_budget)
      return none(`${seen} above ${fmt(up)} but the GPU budget ${policy.max_gpu_budget} is used`);
    if (input.gpusInUse >= input.maxWorkers)
      return none(`${seen} above ${fmt(up)} but the simulator runs at most ${input.maxWorkers} workers`);
    return act("scale_up", `scale up: ${seen} above ${fmt(up)}`);
  }
  if (observed < down) {
    if (replicas <= limits.min_replicas)
      return none(`${seen} below ${fmt(down)} but already at min_replicas ${limits.min_replicas}`);
    if (replicas <= 1) return none(`${seen} below ${fmt(down)} but the last ${role} worker stays`);
    return act("scale_down", `scale down: ${seen} below ${fmt(down)}`);
  }
  return none(`${seen} between ${fmt(down)} and ${fmt(up)}`);
}

function fmt(x: number): string {
  return x.toFixed(2);
}

/** Two decimals, or as many as it takes (up to 6) not to print the same number as the threshold it crossed. */
function fmtAgainst(x: number, threshold: number): string {
  for (let d = 2; d < 6; d++) if (x === threshold || x.toFixed(d) !== threshold.toFixed(d)) return x.toFixed(d);
  return x.toFixed(6);
}

function round4(x: number): number {
  return Math.round(x * 10000) / 10000;
}
