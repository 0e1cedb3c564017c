// Audit entries as one line each. Pure.
import { NO_DATA } from "@/components/format";
import { describeGuard } from "./guard-form";

/** A readable summary of an audit entry's detail: the comment and change count of a publish or rollback, a target's id. */
export function describeAudit(action: string, detail: unknown): string {
  const d = (typeof detail === "object" && detail !== null ? detail : {}) as Record<string, unknown>;
  const parts: string[] = [];
  if (action === "rollback" && typeof d.to === "number")
    parts.push(`content of v${d.to}${typeof d.from === "number" ? ` on top of v${d.from}` : ""}`);
  if (typeof d.changes === "number") parts.push(`${d.changes} field${d.changes === 1 ? "" : "s"} changed`);
  if (action.startsWith("target.") && typeof d.id === "string") {
    parts.push(`target ${d.id}${typeof d.adapter === "string" ? ` (${d.adapter})` : ""}`);
    if (typeof d.enabled === "boolean" && !d.enabled) parts.push("disabled");
  }
  if (action === "guard.tripped" && typeof d.reason === "string")
    parts.push(
      `rolled back by guard: ${d.reason}${typeof d.rollbackVersion === "number" ? ` (as v${d.rollbackVersion})` : ""}`,
    );
  if (action.startsWith("guard.") && action !== "guard.tripped" && typeof d.message === "string") parts.push(d.message);
  if (action === "guard.add" && typeof d.windowMinutes === "number")
    parts.push(describeGuard(d as unknown as Parameters<typeof describeGuard>[0]));
  if (typeof d.comment === "string" && d.comment) parts.push(`“${d.comment}”`);
  return parts.join(" · ") || NO_DATA;
}
