import { SEG_SYSTEM, SEGMENT_NAMES } from "../sim/stream";
import type { RecordedTurn } from "./types";

// What the recording does not say outright about a trajectory's prompt, inferred from its first turn: how many leading
// blocks are shared with other sessions (the system prompt and tool definitions), and whether block 0 is a
// per-trajectory billing header in front of them (a Claude-Code-like harness whose frontend did not strip it).

/**
 * `firstBlocks` of `firstSegment` open the prompt (from a recorded store of its first block, else all shared blocks as
 * the system prompt); the shared blocks after them are tool definitions.
 */
export type PrefixShape = { sharedBlocks: number; headed: boolean; firstBlocks: number; firstSegment: number };
export type FirstRun = { hi: number; lo: number; blocks: number; segment: string };

const TWO32 = 4294967296;

/** A block's (hi, lo) pair as one number below 2^53 (the top 11 bits of hi dropped: collisions are negligible). */
export function blockKey(blocks: Uint32Array, i: number): number {
  return (blocks[2 * i]! & 0x1fffff) * TWO32 + blocks[2 * i + 1]!;
}

/** Shape of every trajectory's prompt, from the first turn of each (in arrival order). Pure. */
export function prefixShapes(turns: readonly RecordedTurn[], runs: readonly FirstRun[] = []): Map<string, PrefixShape> {
  const byFirst = new Map<string, FirstRun>();
  for (const r of runs) byFirst.set(`${r.hi}:${r.lo}`, r);
  const first = new Map<string, RecordedTurn>();
  for (const t of turns) if (t.blocks && !first.has(t.trajectoryId)) first.set(t.trajectoryId, t);
  // Block content → the one session seen with it, or "" once a second session has it.
  const owner = new Map<number, string>();
  for (const t of first.values()) {
    const b = t.blocks!;
    for (let i = 0; i < b.length / 2; i++) {
      const k = blockKey(b, i);
      const o = owner.get(k);
      if (o === undefined) owner.set(k, t.sessionId);
      else if (o !== "" && o !== t.sessionId) owner.set(k, "");
    }
  }
  const shared = (b: Uint32Array, i: number) => owner.get(blockKey(b, i)) === "";
  const out = new Map<string, PrefixShape>();
  // A prompt family (the content of block 1 and how far sharing goes): trajectories whose first block was not seen
  // starting a recorded store take the split of one that was.
  const family = (b: Uint32Array, shared: number) => (b.length >= 4 ? `${blockKey(b, 1)}:${shared}` : `:${shared}`);
  const known = new Map<string, { firstBlocks: number; firstSegment: number }>();
  const unmatched: [string, Uint32Array, PrefixShape][] = [];
  for (const [traj, t] of first) {
    const b = t.blocks!;
    const n = b.length / 2;
    const headed = t.harness === "claude_code" && n > 1 && !shared(b, 0) && shared(b, 1);
    let i = headed ? 1 : 0;
    while (i < n && shared(b, i)) i++;
    const run = t.firstSeq ? byFirst.get(`${t.firstSeq[0]}:${t.firstSeq[1]}`) : undefined;
    const seg = run ? SEGMENT_NAMES.indexOf(run.segment as (typeof SEGMENT_NAMES)[number]) : -1;
    if (run && seg >= 0) {
      const shape = { sharedBlocks: i, headed, firstBlocks: Math.min(i, run.blocks), firstSegment: seg };
      out.set(traj, shape);
      known.set(family(b, i), shape);
    } else {
      const shape = { sharedBlocks: i, headed, firstBlocks: i, firstSegment: SEG_SYSTEM };
      out.set(traj, shape);
      unmatched.push([traj, b, shape]);
    }
  }
  for (const [traj, b, shape] of unmatched) {
    const k = known.get(family(b, shape.sharedBlocks));
    if (k) out.set(traj, { ...shape, ...k });
  }
  return out;
}
