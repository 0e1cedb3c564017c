// bench:trace — the sessions.byId procedure on one session of 500 turns (main + subagents) and 1,000 tool calls.
import { sqliteStore } from "../db/store/store";
import { openDb } from "../db/sqlite/client";
import { insertEvents } from "../db/sqlite/ingest";
import { parseEvent, type TelemetryEvent } from "../server/ingest/events";
import { runAttribution } from "../server/jobs/attribution";
import { createCaller } from "../server/trpc/root";

const T0 = Date.UTC(2025, 10, 29, 12);
const BS = 64;
const ev = (raw: Record<string, unknown>): TelemetryEvent => {
  const r = parseEvent(raw);
  if (!r.ok) throw new Error(r.error);
  return r.event;
};

const db = openDb(":memory:");
const events: TelemetryEvent[] = [];
let blocks: string[] = [];
for (let i = 0; i < 500; i++) {
  const at = T0 + i * 4_000;
  const traj = i % 5 === 4 ? `sub-${Math.floor(i / 50)}` : "main";
  for (let b = 0; b < 8; b++) blocks.push(String(1_000_000 + i * 8 + b));
  if (blocks.length > 600) blocks = blocks.slice(-600);
  const rid = `req-${i}`;
  events.push(
    ev({
      id: `rd-${i}`,
      kind: "route.decision",
      ts: at,
      request_id: rid,
      session_id: "bench",
      trajectory_id: traj,
      prompt_blocks: blocks.length,
      chosen_worker_id: `w${i % 4}`,
      candidates: [0, 1, 2, 3].map((w) => ({
        worker_id: `w${w}`,
        overlap_blocks: w === i % 4 ? blocks.length - 8 : 0,
        prefill_blocks: 8,
        decode_blocks: w * 10,
        cost: 8 + w,
      })),
      overlap_credit: 1,
      prefill_load_scale: 1,
      temperature: 0,
    }),
    ev({
      id: `rq-${i}`,
      kind: "request",
      ts: at + 2_000,
      request_id: rid,
      session_id: "bench",
      trajectory_id: traj,
      parent_trajectory_id: traj === "main" ? undefined : "main",
      harness: "claude_code",
      session_type: "coding",
      api: "messages",
      model: "m",
      worker_id: `w${i % 4}`,
      arrived_at: at,
      first_token_at: at + 300,
      finished_at: at + 2_000,
      input_tokens: blocks.length * BS + 10,
      cached_tokens: (blocks.length - 8) * BS,
      output_tokens: 200,
      reasoning_tokens: 40,
      status: "ok",
      block_size: BS,
      sequence_hashes: blocks,
      local_hashes: blocks,
      policy_versions: { retention: 1, routing: 2 },
    }),
  );
  for (let k = 0; k < 2; k++) {
    const call = `call-${i}-${k}`;
    events.push(
      ev({
        id: `tl-${i}-${k}`,
        kind: "tool",
        ts: at + 3_500,
        session_id: "bench",
        trajectory_id: traj,
        request_id: rid,
        tool_call_id: call,
        name: k ? "Read" : "Bash",
        started_at: at + 1_800 + k * 100,
        ended_at: at + 3_500,
        status: "succeeded",
        output_tokens: 500,
        truncated: k === 1,
        budget: { unit: "tokens", limit: 10_000 },
      }),
      ev({
        id: `rs-${i}-${k}`,
        kind: "reasoning",
        ts: at + 2_000,
        request_id: rid,
        tool_call_id: call,
        tokens: 20,
        started_at: at + 300 + k * 200,
        ended_at: at + 450 + k * 200,
      }),
    );
  }
}
for (let i = 0; i < events.length; i += 1_000) insertEvents(db, events.slice(i, i + 1_000));
runAttribution(db);
async function main() {
  const api = createCaller({
    store: sqliteStore(db),
    now: () => T0 + 3_600_000,
    actor: { kind: "user", id: 0, name: "bench", role: "viewer" },
  });
  const times: number[] = [];
  for (let i = 0; i < 22; i++) {
    const t = performance.now();
    const s = await api.sessions.byId({ id: "bench" });
    if (i >= 2) times.push(performance.now() - t);
    if (i === 0)
      console.log(`session: ${s.totals.turns} turns, ${s.totals.toolCalls} tool calls, ${s.lanes.length} lanes`);
  }
  times.sort((a, b) => a - b);
  const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
  console.log(`trace: p50 ${p(0.5)} ms p95 ${p(0.95)} ms`);
}

void main();
