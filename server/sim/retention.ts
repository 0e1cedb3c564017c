import type { RetentionPolicy } from "../../lib/policies/policies";
import { EVICT_AGENT_END, EVICT_NEVER, EVICT_SESSION_END, type RetentionClass } from "./block-pool";
import { SEGMENT_NAMES } from "./stream";

// Retention rules resolved to the class a block gets: the first rule matching the block's segment,
// the session type and the agent role wins; otherwise the policy default, named after the segment.

const EVICT_CODES = { never: EVICT_NEVER, agent_end: EVICT_AGENT_END, session_end: EVICT_SESSION_END } as const;

/** The class of a block of one segment for a session type and agent role. */
export function classify(
  policy: RetentionPolicy,
  segment: number,
  sessionType: string,
  agentRole: "main" | "subagent",
): RetentionClass {
  const name = SEGMENT_NAMES[segment]!;
  for (const rule of policy.rules) {
    const m = rule.match;
    if (m.segment !== "any" && m.segment !== name) continue;
    if (m.session_type !== null && m.session_type !== sessionType) continue;
    if (m.agent_role !== null && m.agent_role !== agentRole) continue;
    return {
      name: rule.name,
      priority: rule.priority,
      ttlMs: (rule.ttl_seconds ?? 0) * 1000,
      pin: rule.pin,
      evictOn: EVICT_CODES[rule.evict_on],
      offload: rule.offload.to === null ? null : { to: rule.offload.to, ttlMs: (rule.offload.ttl_seconds ?? 0) * 1000 },
      prefetch: rule.prefetch_on_resume,
    };
  }
  const d = policy.default;
  return {
    name,
    priority: d.priority,
    ttlMs: (d.ttl_seconds ?? 0) * 1000,
    pin: false,
    evictOn: EVICT_CODES[d.evict_on],
  };
}

/** Classes per segment code, memoised per (session type, role) for one policy version. */
export class RetentionClasses {
  private cache = new Map<string, RetentionClass[]>();

  /** Some class of this policy evicts on agent_end or session_end. */
  readonly lifecycle: boolean;

  constructor(readonly policy: RetentionPolicy) {
    this.lifecycle = policy.default.evict_on !== "never" || policy.rules.some((r) => r.evict_on !== "never");
  }

  forAgent(sessionType: string, agentRole: "main" | "subagent"): RetentionClass[] {
    const key = `${agentRole}\u0000${sessionType}`;
    let classes = this.cache.get(key);
    if (!classes) {
      classes = SEGMENT_NAMES.map((_, seg) => classify(this.policy, seg, sessionType, agentRole));
      this.cache.set(key, classes);
    }
    return classes;
  }
}
