import { HashView, TokenStream } from "../sim/stream";

// Prompt openings several trajectories share (system prompt and tool definitions), hashed once per replay run and
// copied into each trajectory that starts with them, as the simulator does with its own shared prefixes: without
// this the replay hashed the same few hundred blocks again for every trajectory it saw.

/** Shorter shared openings are hashed in place (the lookup would cost about as much). */
export const MIN_SHARED_BLOCKS = 16;

type Entry = { parts: number[]; segments: number[]; stream: TokenStream; view: HashView };

export class SharedPrefixes {
  private byKey = new Map<string, Entry[]>();
  /** Keys asked for once and not kept: an opening is kept the second time it is hashed (most are one session's own). */
  private once = new Set<string>();

  /** A copy of the stream and view of exactly these blocks (content ids and segments), or null when not kept. */
  take(parts: readonly number[], segments: readonly number[]): { stream: TokenStream; view: HashView } | null {
    for (const e of this.byKey.get(keyOf(parts, segments)) ?? [])
      if (same(e.parts, parts) && same(e.segments, segments)) return { stream: e.stream.clone(), view: e.view.clone() };
    return null;
  }

  /**
   * Keep a copy of a stream that holds just these blocks, hashed (view extended over all of them), once blocks with
   * the same key were offered before: a key seen once is only noted.
   */
  keep(parts: readonly number[], segments: readonly number[], stream: TokenStream, view: HashView): void {
    const k = keyOf(parts, segments);
    if (!this.once.has(k)) {
      this.once.add(k);
      return;
    }
    const list = this.byKey.get(k) ?? [];
    list.push({ parts: [...parts], segments: [...segments], stream: stream.clone(), view: view.clone() });
    this.byKey.set(k, list);
  }
}

function same(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Length, first, last and a mix of every part: equal blocks give equal keys (entries are compared in full). */
function keyOf(parts: readonly number[], segments: readonly number[]): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < parts.length; i++) h = Math.imul(h ^ (parts[i]! % 0x7fffffff) ^ (segments[i]! << 28), 16777619);
  return `${parts.length}:${parts[0]}:${parts[parts.length - 1]}:${h >>> 0}`;
}
