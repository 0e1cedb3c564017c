import type { Lane, ReasoningRow, Tool, Turn } from "@/server/analysis/session-assembly";
import { formatCount, formatMs, NO_DATA } from "@/components/format";
import { formatOffset } from "./timeline";

// What hovering (or focusing) a bar of the session trace says about it: a title and label/value rows. Pure. Times
// are offsets from the session's start so they read against the axis. More rows (e.g. ITL) append to the lists.

export type BarDetails = { title: string; rows: [label: string, value: string][] };

const agent = (l: Pick<Lane, "role" | "trajectoryId">) =>
  l.role === "main" ? "main agent" : `subagent ${l.trajectoryId}`;
const ms = (v: number | null) => formatMs(v);

/** A turn: when it arrived, its queue/prefill/decode split, tokens and worker. */
export function turnDetails(t: Turn, lane: Pick<Lane, "role" | "trajectoryId">, start: number): BarDetails {
  return {
    title: `Turn ${t.requestId} · ${agent(lane)}`,
    rows: [
      ["Arrived", formatOffset(t.arrivedAt - start)],
      ["Queue (est.)", ms(t.split.queue)],
      ["Prefill", ms(t.split.prefill)],
      ["Decode", ms(t.split.decode)],
      [
        "Tokens",
        `${formatCount(t.inputTokens)} in (${formatCount(t.cachedTokens)} cached) · ${formatCount(t.outputTokens)} out${t.reasoningTokens ? ` · ${formatCount(t.reasoningTokens)} reasoning` : ""}`,
      ],
      ["Worker", t.workerId ?? NO_DATA],
      ["Status", t.status],
    ],
  };
}

/** A tool call: name, start offset, duration (or still running), status, early dispatch and truncation. */
export function toolDetails(t: Tool, start: number): BarDetails {
  const rows: BarDetails["rows"] = [
    ["Started", formatOffset(t.startedAt - start)],
    ["Duration", t.endedAt === null ? "still running" : ms(t.endedAt - t.startedAt)],
    ["Status", t.status],
  ];
  if (t.earlyGainMs > 0) rows.push(["Early dispatch", `${ms(t.earlyGainMs)} before the stream ended`]);
  if (t.truncated) rows.push(["Output", `truncated at ${formatCount(t.budgetLimit)} ${t.budgetUnit ?? ""}`.trim()]);
  else if (t.outputTokens !== null) rows.push(["Output", `${formatCount(t.outputTokens)} tokens`]);
  return { title: `Tool ${t.name} · ${t.toolCallId}`, rows };
}

/** A reasoning span: tokens, when and how long, and the tool call it explains. */
export function reasoningDetails(r: ReasoningRow, start: number): BarDetails {
  return {
    title: "Reasoning",
    rows: [
      ["Started", formatOffset(r.startedAt - start)],
      ["Duration", ms(r.endedAt - r.startedAt)],
      ["Tokens", formatCount(r.tokens)],
      ["Explains", r.toolCallId ? `tool call ${r.toolCallId}` : `turn ${r.requestId}`],
    ],
  };
}

export type LaneItem =
  | { kind: "turn"; key: string; from: number; to: number; turn: Turn }
  | { kind: "tool"; key: string; from: number; to: number; tool: Tool }
  | { kind: "reasoning"; key: string; from: number; to: number; span: ReasoningRow };

/** Every bar of a lane in time order (turns, tools, reasoning spans: the tool's and the lane's), for keyboard stepping. */
export function laneItems(l: Lane): LaneItem[] {
  const items: LaneItem[] = [
    ...l.turns.map((turn): LaneItem => ({
      kind: "turn",
      key: `turn:${turn.id}`,
      from: turn.arrivedAt,
      to: turn.finishedAt ?? turn.arrivedAt,
      turn,
    })),
    ...l.tools.map((tool): LaneItem => ({
      kind: "tool",
      key: `tool:${tool.toolCallId}`,
      from: tool.startedAt,
      to: tool.endedAt ?? tool.startedAt,
      tool,
    })),
    ...[...l.tools.flatMap((t) => t.reasoning), ...l.reasoning].map((span, i): LaneItem => ({
      kind: "reasoning",
      key: `reasoning:${span.requestId}:${span.startedAt}:${i}`,
      from: span.startedAt,
      to: span.endedAt,
      span,
    })),
  ];
  return items.sort((a, b) => a.from - b.from || a.key.localeCompare(b.key));
}

/** The hover details of a lane item. */
export function itemDetails(item: LaneItem, lane: Lane, start: number): BarDetails {
  if (item.kind === "turn") return turnDetails(item.turn, lane, start);
  if (item.kind === "tool") return toolDetails(item.tool, start);
  return reasoningDetails(item.span, start);
}
