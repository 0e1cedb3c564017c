import type { SessionRow } from "@/db/store/session-list";

const HEAD = [
  "session_id",
  "harness",
  "session_type",
  "agents",
  "subagents",
  "turns",
  "input_tokens",
  "cached_tokens",
  "cached_share",
  "cold",
  "diverged",
  "evicted",
  "routed_away",
  "unknown",
  "ttft_p50_ms",
  "tool_calls",
  "tool_wait_ms",
  "duration_ms",
  "first_at",
  "last_at",
  "errors",
];

/** One CSV field: quoted when needed; text a spreadsheet would run as a formula gets a leading quote. */
const cell = (v: unknown) => {
  let s = v === null || v === undefined ? "" : String(v);
  if (typeof v === "string" && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** Sessions rows as CSV text (header first). */
export function sessionsCsv(rows: readonly SessionRow[]): string {
  const lines = rows.map((r) =>
    [
      r.sessionId,
      r.harness,
      r.sessionType,
      r.agents,
      r.subagents,
      r.turns,
      r.inputTokens,
      r.cachedTokens,
      r.cachedShare,
      r.cold,
      r.diverged,
      r.evicted,
      r.routedAway,
      r.unknown,
      r.ttftP50,
      r.toolCalls,
      r.toolWaitMs,
      r.duration,
      new Date(r.firstAt).toISOString(),
      new Date(r.lastAt).toISOString(),
      r.errors,
    ]
      .map(cell)
      .join(","),
  );
  return [HEAD.join(","), ...lines].join("\n") + "\n";
}
