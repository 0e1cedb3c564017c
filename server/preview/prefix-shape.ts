import type { RecordedTurn } from "./types";

// What the recording does not say outright about a trajectory's prompt, inferred from its first turn: how many leading
// blocks are shared with other sessions (the system prompt and tool definitions), and whether block 0 is a
// per-trajectory billing header in front of them (a Claude-Code-like harness whose frontend did not strip it).

export type PrefixShape = { sharedBlocks: number; headed: boolean };

const TWO32 = 4294967296;

/** A block's (hi, lo) pair as one number below 2^53 (the top 11 bits of hi dropped: collisions are negligible). */
export function blockKey(blocks: Uint32Array, i: number): number {
  return (blocks[2 * i]! & 0x1fffff) * TWO32 + blocks[2 * i + 1]!;
}

/** Shape of every trajectory's prompt, from the first turn of each (in arrival order). Pure. */
export function prefixShapes(turns: readonly RecordedTurn[]): Map<string, PrefixShape> {
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
  for (const [traj, t] of first) {
    const b = t.blocks!;
    const n = b.length / 2;
    const headed = t.harness === "claude_code" && n > 1 && !shared(b, 0) && shared(b, 1);
    let i = headed ? 1 : 0;
    while (i < n && shared(b, i)) i++;
    out.set(traj, { sharedBlocks: i, headed });
  }
  return out;
}
