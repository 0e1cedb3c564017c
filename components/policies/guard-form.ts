import { guardInput, type GuardSpec } from "@/lib/policies/guard-input";

// The publish dialog's guard fields as typed text, checked with the same schema the publish procedure uses. Pure.

export type GuardField = "ttftP95RisePct" | "hitRateDropPoints" | "windowMinutes";
export type GuardDraft = {
  enabled: boolean;
  ttftOn: boolean;
  ttft: string;
  hitOn: boolean;
  hit: string;
  window: string;
};

/** Off until the operator adds one; when added, both checks at the issue's example limits over 10 minutes. */
export const DEFAULT_GUARD_DRAFT: GuardDraft = {
  enabled: false,
  ttftOn: true,
  ttft: "20",
  hitOn: true,
  hit: "5",
  window: "10",
};

const num = (s: string) => (s.trim() === "" ? Number.NaN : Number(s));

/** The guard to send (null: none) or the message per field that stops the publish. */
export function checkGuardDraft(d: GuardDraft): {
  guard: GuardSpec | null;
  errors: Partial<Record<GuardField, string>>;
} {
  if (!d.enabled) return { guard: null, errors: {} };
  const parsed = guardInput.safeParse({
    ttftP95RisePct: d.ttftOn ? num(d.ttft) : null,
    hitRateDropPoints: d.hitOn ? num(d.hit) : null,
    windowMinutes: num(d.window),
  });
  if (parsed.success) return { guard: parsed.data, errors: {} };
  const errors: Partial<Record<GuardField, string>> = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0] as GuardField;
    errors[field] ??= issue.message;
  }
  return { guard: null, errors };
}

/** "TTFT p95 may not rise more than 20% or the hit rate fall more than 5 points within 10 min". */
export function describeGuard(g: Pick<GuardSpec, GuardField>): string {
  const parts = [
    g.ttftP95RisePct !== null ? `TTFT p95 may not rise more than ${g.ttftP95RisePct}%` : null,
    g.hitRateDropPoints !== null
      ? `${g.ttftP95RisePct !== null ? "the hit rate" : "Hit rate may not"} fall more than ${g.hitRateDropPoints} points`
      : null,
  ].filter(Boolean);
  return `${parts.join(" or ")} within ${g.windowMinutes} min`;
}
