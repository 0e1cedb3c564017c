import type { TelemetryEventInput } from "../ingest/events";
import { CHAIN_VIEW, type ChainSource } from "./event-builders";
import { StringOut, toJsonLine, writeJsonLine, type LineOut } from "./json-lines";
import type { HashView } from "./stream";

// The compact wire form of request chains (docs/telemetry-format.md, "Compact chains"): a turn names its trajectory's previous
// request and carries only the hashes it adds. A trajectory's hash view only grows (until compaction replaces it), so
// two requests of one view share min(their lengths) blocks.

/** One NDJSON line to send, and (for a compact request) the full-list line to re-send if the receiver lacks the prefix. */
export type OutLine = { line: string; full: (() => string) | null };

export class ChainCompactor {
  private readonly last = new WeakMap<HashView, Base>();

  /** The line of an event: a request extending an earlier request of its view is compact, anything else as is. */
  line(event: TelemetryEventInput): OutLine {
    const c = (event as ChainSource)[CHAIN_VIEW];
    if (!c || event.kind !== "request") return { line: toJsonLine(event), full: null };
    const prev = this.base(c.view, event.request_id, event.arrived_at, c.nBlocks);
    if (!prev) return { line: toJsonLine(event), full: null };
    const blocks = Math.min(prev.nBlocks, c.nBlocks);
    const out = new StringOut();
    c.compactJson(event, { request_id: prev.requestId, blocks }, out);
    return { line: out.s, full: () => toJsonLine(event) };
  }

  /** Write the line of an event to `out` (as `line` would give it, without building it). */
  write(event: TelemetryEventInput, out: LineOut): void {
    const c = (event as ChainSource)[CHAIN_VIEW];
    if (!c || event.kind !== "request") return writeJsonLine(event, out);
    const prev = this.base(c.view, event.request_id, event.arrived_at, c.nBlocks);
    if (!prev) return writeJsonLine(event, out);
    c.compactJson(event, { request_id: prev.requestId, blocks: Math.min(prev.nBlocks, c.nBlocks) }, out);
  }

  /**
   * The request a new one of `view` may name as its base, or null (send full lists): the view's latest request sent,
   * when it arrived no later than this one. Requests are sent as they finish, so a speculative prefill that arrived
   * first can finish after a turn that arrived later; the receiver refuses a base that arrived later (invalid_prefix),
   * so such a request goes in full, and the later one stays the view's base.
   */
  private base(view: HashView, requestId: string, arrivedAt: number, nBlocks: number): Base | null {
    const prev = this.last.get(view);
    if (prev && prev.arrivedAt > arrivedAt) return null;
    this.last.set(view, { requestId, nBlocks, arrivedAt });
    return prev ?? null;
  }
}

type Base = { requestId: string; nBlocks: number; arrivedAt: number };
