import type { z } from "zod";
import { Dealer, Subscriber } from "zeromq";
import type { TelemetryEventInput } from "../../ingest/events";
import type { SourceReport, SourceSink } from "../status";
import type { zmqSourceConfig } from "../../../lib/sources/zmq-config";
import { outboundFailure } from "../../outbound/failure";
import { checkedEndpoint } from "./endpoint";
import { gapMessage, type SequenceState } from "./sequence";
import { addCounts, readMessage, readPayload, type MessageContext, type PayloadOutcome } from "./stream";
import { ZMQ_MAX_PENDING } from "../../../lib/memory-bounds";

export type ZmqSourceOptions = {
  now?: () => number;
  /** How often pending events are ingested and status reported (ms). */
  flushMs?: number;
  /** How often a quiet subscriber reports that it is still connected, or that it is not (ms). */
  heartbeatMs?: number;
  /** How long a replay request may take before the gap is left unfilled (ms). */
  replayTimeoutMs?: number;
};

const SUBMIT_CHUNK = 5_000;
const CONNECT_RETRY_MS = 10_000;
/** Pending events at which reading pauses until they are ingested (ZMQ then buffers, and drops past its high-water mark). */
const MAX_PENDING = ZMQ_MAX_PENDING;
const MAX_REPLAY_BATCHES = 10_000;

/**
 * Subscribe to a vLLM/SGLang KV events publisher and ingest its blocks as config.worker_id's. Reconnects are ZMQ's
 * (with ZMTP heartbeats so a dead publisher is noticed); lost batches show as sequence gaps, filled from the
 * publisher's replay socket when replay_endpoint is set. Status gaps count the gaps that lost data (a gap the
 * replay filled completely is only counted in detail.recovered_gaps); detail.missed_batches is batches lost. Returns the function that stops it (pending events are
 * ingested first).
 */
export function startZmqSource(
  sink: SourceSink,
  id: string,
  config: z.output<typeof zmqSourceConfig>,
  report: SourceReport,
  opts: ZmqSourceOptions = {},
): () => Promise<void> {
  const now = opts.now ?? Date.now;
  const flushMs = opts.flushMs ?? 250;
  const heartbeatMs = opts.heartbeatMs ?? 30_000;
  const replayTimeoutMs = opts.replayTimeoutMs ?? 2_000;
  const sub = new Subscriber({
    linger: 0,
    reconnectInterval: 500,
    reconnectMaxInterval: 10_000,
    heartbeatInterval: 5_000,
    heartbeatTimeout: 15_000,
    receiveHighWaterMark: 100_000,
  });
  let state: SequenceState = { next: null };
  let stopped = false;
  let connected = false;
  let connectError: string | null = null;
  // The first "not connected" comes after 5 s at most, later ones every heartbeatMs.
  let lastReportAt = now() - heartbeatMs + Math.min(5_000, heartbeatMs);
  let flushing: Promise<void> | null = null;

  const pending: TelemetryEventInput[] = [];
  let gaps = 0;
  let errors: string[] = [];
  const totals = {
    batches: 0,
    missed_batches: "0",
    replayed_batches: 0,
    recovered_gaps: 0,
    restarts: 0,
    malformed: 0,
    last_seq: null as string | null,
    block_size: null as number | null,
    dp_rank: null as number | null,
  };
  const unknownTypes: Record<string, number> = {};
  const skippedMedia: Record<string, number> = {};

  const ctx = (): MessageContext => ({ sourceId: id, workerId: config.worker_id, receivedAt: now() });
  const detail = () => ({
    endpoint: config.endpoint,
    topic: config.topic,
    worker_id: config.worker_id,
    model: config.model ?? null,
    connected,
    ...totals,
    unknown_types: unknownTypes,
    skipped_media: skippedMedia,
  });
  const noteError = (message: string) => {
    if (errors.length < 50) errors.push(message);
  };

  const take = (o: PayloadOutcome) => {
    for (const e of o.events) pending.push(e);
    if (o.error) {
      totals.malformed++;
      noteError(o.error);
    }
    for (const p of o.problems) noteError(p);
    addCounts(unknownTypes, o.unknown);
    addCounts(skippedMedia, o.skippedMedia);
    if (o.dpRank !== null) totals.dp_rank = o.dpRank;
    if (o.blockSize !== null) {
      if (config.block_size !== undefined && o.blockSize !== config.block_size && totals.block_size !== o.blockSize) {
        noteError(
          `publisher block_size ${o.blockSize} differs from the configured ${config.block_size}: block hashes will not match requests`,
        );
      }
      totals.block_size = o.blockSize;
    }
  };

  const flush = async (): Promise<void> => {
    const events = pending.splice(0, pending.length);
    const gapCount = gaps;
    gaps = 0;
    let accepted = 0;
    for (let at = 0; at < events.length; at += SUBMIT_CHUNK) {
      try {
        const reply = await sink.submit(events.slice(at, at + SUBMIT_CHUNK));
        accepted += reply.accepted;
        const bad = reply.items.find((i) => i.status === "rejected");
        if (bad) noteError(`${reply.rejected} event(s) rejected by ingest, first: ${bad.error ?? "invalid"}`);
      } catch (err) {
        noteError(`ingest failed: ${message(err)}`);
      }
    }
    const t = now();
    const errs = errors;
    errors = [];
    if (events.length === 0 && gapCount === 0 && errs.length === 0 && t - lastReportAt < heartbeatMs) return;
    if (connected || events.length > 0 || gapCount > 0)
      await report.ok(t, { events: accepted, gaps: gapCount, detail: detail() });
    if (errs.length > 0) await report.error(t, summarize(errs));
    else if (!connected && events.length === 0)
      await report.error(t, `not connected to ${config.endpoint}${connectError ? `: ${connectError}` : ""}; retrying`);
    lastReportAt = t;
  };
  const flushOnce = () => (flushing ??= flush().finally(() => (flushing = null)));

  const replay = async (from: bigint, to: bigint): Promise<number> => {
    if (!config.replay_endpoint) return 0;
    const dealer = new Dealer({ linger: 0, sendTimeout: replayTimeoutMs, receiveTimeout: replayTimeoutMs });
    let got = 0;
    try {
      dealer.connect(await checkedEndpoint(config.replay_endpoint));
      await dealer.send([Buffer.alloc(0), u64(from)]);
      for (let i = 0; i < MAX_REPLAY_BATCHES; i++) {
        const frames = await dealer.receive();
        const [seqFrame, payload] = frames.length === 3 ? [frames[1]!, frames[2]!] : [frames[0]!, frames[1]];
        if (!payload || payload.length === 0 || seqFrame.length !== 8) break;
        const seq = seqFrame.readBigUInt64BE(0);
        if (seq < from) continue;
        if (seq > to) break;
        take(readPayload(payload, seq, ctx()));
        got++;
        if (seq === to) break;
      }
    } catch (err) {
      noteError(`replay from ${config.replay_endpoint} incomplete: ${message(err)}`);
    } finally {
      dealer.close();
    }
    totals.replayed_batches += got;
    return got;
  };

  const onMessage = async (frames: Buffer[]) => {
    const read = readMessage(state, frames, ctx());
    state = read.state;
    const { outcome } = read;
    if (outcome.seq !== null) totals.last_seq = outcome.seq.toString();
    const step = outcome.step;
    if (step?.kind === "gap") {
      const got = BigInt(await replay(step.from, step.to));
      if (got === step.missed) {
        totals.recovered_gaps++;
      } else {
        gaps++;
        totals.missed_batches = (BigInt(totals.missed_batches) + step.missed - got).toString();
        noteError(
          gapMessage(config.endpoint, step) +
            (config.replay_endpoint ? ` (replay recovered ${got} of ${step.missed})` : ""),
        );
      }
    } else if (step?.kind === "restart") {
      totals.restarts++;
    }
    totals.batches++; // messages received, readable or not
    take(outcome);
  };

  const observe = async () => {
    for await (const event of sub.events) {
      if (event.type === "handshake" && !connected) {
        connected = true;
        void report.ok(now(), { events: 0, detail: detail() });
      } else if (event.type === "disconnect" && connected) {
        connected = false;
        if (!stopped)
          void report.error(
            now(),
            `disconnected from ${config.endpoint}; reconnecting (batches sent meanwhile show as a gap)`,
          );
      } else if (event.type === "end") return;
    }
  };

  const receive = async () => {
    try {
      for await (const frames of sub) {
        await onMessage(frames);
        if (pending.length >= MAX_PENDING) await flushOnce();
      }
    } catch (err) {
      if (!stopped) void report.error(now(), `subscriber stopped: ${message(err)}`);
    }
  };

  // The observer sees only events after it is created: it must exist before connect().
  const observing = observe().catch(() => {});
  try {
    sub.subscribe(config.topic);
  } catch (err) {
    sub.close();
    throw new Error(`cannot subscribe to ${config.endpoint}: ${message(err)}`);
  }
  // The host is resolved and checked against the outbound policy first; a refusal or failed lookup is retried.
  const connect = async () => {
    while (!stopped) {
      try {
        const checked = await checkedEndpoint(config.endpoint);
        if (!stopped) sub.connect(checked);
        connectError = null;
        return;
      } catch (err) {
        connectError = outboundFailure(err, 0).message;
        if (!stopped) void report.error(now(), `not connected to ${config.endpoint}: ${connectError}; retrying`);
        await new Promise((r) => setTimeout(r, CONNECT_RETRY_MS).unref?.());
      }
    }
  };
  void connect();
  const receiving = receive();
  const timer = setInterval(() => void flushOnce(), flushMs);
  timer.unref?.();

  return async () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    sub.close();
    await Promise.all([receiving, observing]);
    await (flushing ?? Promise.resolve());
    await flushOnce();
  };
}

/** One status line for a pass's problems: gaps first (they matter most), then the others, at most three. */
export function summarize(errors: readonly string[]): string {
  const ordered = [
    ...errors.filter((e) => e.startsWith("sequence gap")),
    ...errors.filter((e) => !e.startsWith("sequence gap")),
  ];
  const more = ordered.length > 3 ? ` (+${ordered.length - 3} more)` : "";
  return ordered.slice(0, 3).join("; ") + more;
}

function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt.asUintN(64, n));
  return b;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
