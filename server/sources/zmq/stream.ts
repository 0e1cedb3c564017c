import type { TelemetryEventInput } from "../../ingest/events";
import { decodeBatch, splitFrames } from "./decode";
import { mapBatch } from "./map";
import { advance, type SequenceState, type SequenceStep } from "./sequence";

export type MessageContext = { sourceId: string; workerId: string; receivedAt: number; restarted?: boolean };

/** Everything one ZMQ message told us; the subscriber turns it into ingest calls and status reports. */
export type MessageOutcome = {
  events: TelemetryEventInput[];
  seq: bigint | null;
  /** Sequence verdict, null when the frames could not be read. */
  step: SequenceStep | null;
  /** The message or its payload was unusable (nothing from it is kept). */
  error: string | null;
  /** Malformed events inside an otherwise good batch (the good ones are kept). */
  problems: string[];
  unknown: Record<string, number>;
  skippedMedia: Record<string, number>;
  /** block_size of the last BlockStored carrying one, for comparison with the configured one. */
  blockSize: number | null;
  /** The batch's data-parallel rank, when it names one. */
  dpRank: number | null;
};

/** Read one multipart message: frames → sequence verdict → msgpack batch → normalized events (pure). */
export function readMessage(
  state: SequenceState,
  frames: readonly Uint8Array[],
  ctx: MessageContext,
): { state: SequenceState; outcome: MessageOutcome } {
  const outcome: MessageOutcome = {
    events: [],
    seq: null,
    step: null,
    error: null,
    problems: [],
    unknown: {},
    skippedMedia: {},
    blockSize: null,
    dpRank: null,
  };
  const split = splitFrames(frames);
  if (!split.ok) return { state, outcome: { ...outcome, error: split.error } };
  const { seq, payload } = split.frames;
  const next = advance(state, seq);
  outcome.seq = seq;
  outcome.step = next.step;
  const decoded = readPayload(payload, seq, { ...ctx, restarted: next.step.kind === "restart" });
  return { state: next.state, outcome: { ...outcome, ...decoded } };
}

export type PayloadOutcome = Omit<MessageOutcome, "seq" | "step">;

/** Decode and map one payload of a known sequence number (also used for replayed batches). */
export function readPayload(payload: Uint8Array, seq: bigint, ctx: MessageContext): PayloadOutcome {
  const decoded = decodeBatch(payload);
  if (!decoded.ok)
    return {
      events: [],
      error: `seq ${seq}: ${decoded.error}`,
      problems: [],
      unknown: {},
      skippedMedia: {},
      blockSize: null,
      dpRank: null,
    };
  const { batch } = decoded;
  const mapped = mapBatch(batch, { ...ctx, seq });
  let blockSize: number | null = null;
  for (const e of batch.events) if (e.type === "stored" && e.blockSize !== null) blockSize = e.blockSize;
  return {
    events: mapped.events,
    error: null,
    problems: batch.problems.map((p) => `seq ${seq}: ${p}`),
    unknown: batch.unknown,
    skippedMedia: mapped.skippedMedia,
    blockSize,
    dpRank: batch.dpRank,
  };
}

/** Add counts from one tally into another (unknown event types, skipped media). */
export function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}
