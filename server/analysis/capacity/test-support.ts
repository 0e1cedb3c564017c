import type { RecordedTurn, ReplayInput } from "../../preview/types";

// Generated traffic for the capacity tests: trajectories whose prompts grow turn by turn behind a few shared openings
// (system prompt + tool definitions), some compacted (a new chain after the opening), some subagents, sticky routing
// with occasional moves and unrouted turns, warm-up turns before the window and turns after it.

export type TraceSpec = {
  seed: number;
  trajectories: number;
  turns: number;
  workers: number;
  /** Shared openings and their length in blocks. */
  openings?: number;
  openingBlocks?: number;
  /** New blocks per turn, at most. */
  growth?: number;
  /** Trajectories in flight at once (default 4). */
  concurrent?: number;
  blockSize?: number;
};

export type Trace = { turns: RecordedTurn[]; firstRuns: ReplayInput["firstRuns"] };

/** A small deterministic PRNG (mulberry32): floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A turn with the given chain (hash pairs) and fields the capacity code reads; the rest neutral. */
export function turnOf(p: Partial<RecordedTurn> & { blocks: Uint32Array | null; arrivedAt: number }): RecordedTurn {
  return {
    requestId: `r${p.arrivedAt}`,
    sessionId: "s",
    trajectoryId: "t",
    parentTrajectoryId: null,
    sessionType: "interactive",
    harness: null,
    firstTokenAt: null,
    finishedAt: null,
    inputTokens: p.blocks ? (p.blocks.length / 2) * (p.blockSize ?? 16) : 100,
    cachedTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    status: "ok",
    hints: {},
    blockSize: 16,
    workerId: "w1",
    firstSeq: p.blocks && p.blocks.length >= 2 ? [p.blocks[0]!, p.blocks[1]!] : null,
    phase: "window",
    ...p,
  };
}

/** Generated turns in arrival order; the first tenth are warm-up, the last twentieth after the window. */
export function generateTrace(spec: TraceSpec): Trace {
  const rnd = prng(spec.seed);
  const bs = spec.blockSize ?? 16;
  const openings = Array.from({ length: spec.openings ?? 3 }, () =>
    Array.from({ length: Math.max(1, Math.round((spec.openingBlocks ?? 6) * (0.5 + rnd()))) }, () => [
      (rnd() * 2 ** 32) >>> 0,
      (rnd() * 2 ** 32) >>> 0,
    ]),
  );
  const firstRuns = openings.map((o, i) => ({
    hi: o[0]![0]!,
    lo: o[0]![1]!,
    blocks: Math.max(1, Math.floor(o.length / 2)),
    segment: i % 2 ? "system_prompt" : "tool_definitions",
  }));
  type Live = { id: string; parent: string | null; chain: number[][]; worker: string | null; left: number };
  const live: Live[] = [];
  const turns: RecordedTurn[] = [];
  let made = 0;
  let clock = 0;
  const total = spec.trajectories * spec.turns;
  while (turns.length < total) {
    if (live.length < (spec.concurrent ?? 4) && made < spec.trajectories) {
      const parent = live.length > 0 && rnd() < 0.25 ? live[0]!.id : null;
      const opening = openings[Math.floor(rnd() * openings.length)]!;
      live.push({
        id: `traj${made++}`,
        parent,
        chain: opening.map((b) => [...b]),
        worker: `w${1 + Math.floor(rnd() * spec.workers)}`,
        left: spec.turns,
      });
      continue;
    }
    if (live.length === 0) break;
    const k = Math.floor(rnd() * live.length);
    const tr = live[k]!;
    const r = rnd();
    if (r < 0.08) tr.chain = tr.chain.slice(0, openings[0]!.length);
    else if (r < 0.12) tr.chain[Math.floor(rnd() * tr.chain.length)] = [(rnd() * 2 ** 32) >>> 0, 7];
    const grow = Math.floor(rnd() * ((spec.growth ?? 4) + 1));
    for (let g = 0; g < grow; g++) tr.chain.push([(rnd() * 2 ** 32) >>> 0, (rnd() * 2 ** 32) >>> 0]);
    if (rnd() < 0.1) tr.worker = `w${1 + Math.floor(rnd() * spec.workers)}`;
    const n = tr.chain.length;
    const noChain = rnd() < 0.03;
    const blocks = noChain ? null : Uint32Array.from(tr.chain.flat());
    const inputTokens = Math.max(1, n * bs - Math.floor(rnd() * 1.5 * bs));
    turns.push(
      turnOf({
        arrivedAt: (clock += 1 + Math.floor(rnd() * 3)),
        trajectoryId: tr.id,
        sessionId: tr.parent ? `s-${tr.parent}` : `s-${tr.id}`,
        parentTrajectoryId: tr.parent,
        blocks,
        blockSize: bs,
        inputTokens,
        workerId: rnd() < 0.03 ? null : tr.worker,
      }),
    );
    if (--tr.left === 0) live.splice(k, 1);
  }
  const warm = Math.floor(turns.length / 10);
  const after = turns.length - Math.floor(turns.length / 20);
  turns.forEach((t, i) => (t.phase = i < warm ? "warmup" : i >= after ? "after" : "window"));
  return { turns, firstRuns };
}
