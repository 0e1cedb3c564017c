import type { NamedRequest, PrefixCode, PrefixResolution } from "../../db/rows/ingest";
import type { EventOf } from "./events";

// The rules of `prefix_of` (docs/telemetry-format.md, "Compact chains"): which earlier request a compact request may extend. Pure;
// db/ finds the named request (db/sqlite/chains.ts namedRequest), this decides.

const bad = (code: PrefixCode, error: string): PrefixResolution => ({ ok: false, code, error });

/**
 * Resolve a request's prefix_of against what the store holds. `unknown_prefix` (the sender re-sends full lists): the
 * named request is not held, or holds fewer hashes than `blocks`. `invalid_prefix`: it can never be right (itself, a
 * later request, another session or sender).
 */
export function resolvePrefix(
  e: EventOf<"request">,
  named: NamedRequest | null,
  laterInBatch: boolean,
): PrefixResolution {
  const p = e.prefix_of!;
  const what = `prefix_of.request_id ${JSON.stringify(p.request_id)}`;
  if (p.request_id === e.request_id) return bad("invalid_prefix", `${what}: names the request itself`);
  if (!named) {
    if (laterInBatch)
      return bad("invalid_prefix", `${what}: names a later item of this batch (a prefix must come first)`);
    return bad("unknown_prefix", `${what}: no such request is held; send full sequence_hashes and local_hashes`);
  }
  if (named.source !== (e.source ?? null))
    return bad(
      "invalid_prefix",
      `${what}: names a request from another sender (source ${JSON.stringify(named.source)})`,
    );
  if (named.sessionId !== (e.session_id ?? null))
    return bad("invalid_prefix", `${what}: names a request of another session`);
  if (named.arrivedAt > e.arrived_at)
    return bad("invalid_prefix", `${what}: names a request that arrived later than this one`);
  if (p.blocks > named.seqCount) {
    return bad(
      "unknown_prefix",
      `prefix_of.blocks: ${p.blocks} exceeds the ${named.seqCount} sequence hashes held for ${JSON.stringify(p.request_id)}; send full lists`,
    );
  }
  const local = e.local_hashes !== undefined;
  if (local && p.blocks > (named.localCount ?? 0)) {
    return bad(
      "unknown_prefix",
      `prefix_of.blocks: ${p.blocks} exceeds the ${named.localCount ?? 0} local hashes held for ${JSON.stringify(p.request_id)}; send full lists`,
    );
  }
  return { ok: true, base: named.rowId, shared: p.blocks, localShared: local ? p.blocks : 0 };
}
