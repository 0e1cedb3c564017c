import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rollupColumns, type SeriesChart } from "../../db/store/worker-columns";
import { pgStore, type Store } from "../../db/store/store";
import type { IngestRow } from "../../db/rows/ingest";
import type { PgDb } from "../../db/pg/client";
import { CHART_CHUNK_MS, chunkOf, ROLLUP_LOCK, trimChartChunksPg } from "../../db/pg/chart-chunks";
import { insertEventsPg } from "../../db/pg/ingest";
import { parsed, stats, T0 } from "../../test/events";
import { freshPg, PG_TEST_URL } from "../../test/pg";
import { sealChartChunks, startChartSealer } from "./chart-seal";
import { sweepRetentionPg } from "./retention";

// PostgreSQL's packed chart chunks: the hour's chart read from chunks before the sealed horizon and rows after it must
// be what the rollup's rows alone give, after sealing, after late samples behind the horizon, and after retention.

const MIN = 60_000;
const START = chunkOf(T0) + CHART_CHUNK_MS;
const END = START + 40 * MIN;

/** Samples every 5 s for three workers over 40 minutes, counters and KV varying (w3 idle for a while: null ratios). */
function samples(from: number, to: number, workers = ["w1", "w2", "w3"]): IngestRow[] {
  const out: IngestRow[] = [];
  for (const [k, w] of workers.entries())
    for (let ts = from, i = 0; ts < to; ts += 5_000, i++) {
      const idle = w === "w3" && ts > from + 10 * MIN && ts < from + 17 * MIN;
      const q = idle ? 0 : (i * (i + 3 + k)) % 977;
      out.push(
        parsed(
          stats(w, ts, String(1_000_000 + i * 500 + q), String(500_000 + i * 300 + (q % 301)), {
            kv_active_blocks: idle ? 0 : (i * 37 + k * 11) % 8192,
            kv_total_blocks: idle ? 0 : 8192,
          }),
        ) as IngestRow,
      );
    }
  return out.sort((a, b) => a.ts - b.ts);
}

describe.skipIf(!PG_TEST_URL)("chart chunks on PostgreSQL", () => {
  let pg: PgDb;
  let store: Store;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ pg, drop } = await freshPg());
    store = pgStore(pg);
    const rows = samples(START, END);
    for (let i = 0; i < rows.length; i += 300) await insertEventsPg(pg, rows.slice(i, i + 300));
  });
  afterAll(() => drop?.());

  const read = (from: number, to: number, charts?: readonly SeriesChart[], workerId?: string) =>
    rollupColumns(store, { from, to, step: 30_000, resolution: "30s", charts, workerId }).then((ws) =>
      ws.sort((a, b) => a.workerId.localeCompare(b.workerId)),
    );
  const horizon = async () => Number((await pg.$client`SELECT sealed_until AS u FROM worker_chart_seal`)[0]?.u ?? 0);
  /** The same read from the rollup's rows alone: the horizon taken away for it, then put back. */
  const fromRows = async (from: number, to: number, charts?: readonly SeriesChart[], workerId?: string) => {
    const h = await horizon();
    await pg.$client`DELETE FROM worker_chart_seal`;
    try {
      return await read(from, to, charts, workerId);
    } finally {
      if (h) await pg.$client`INSERT INTO worker_chart_seal VALUES ('30s', ${h})`;
    }
  };
  const RANGES: [string, number, number][] = [
    ["the whole span", START - 30 * MIN, END + MIN],
    ["an hour ending now, starting mid-chunk", END - 60 * MIN + 45_000, END],
    ["a range inside sealed chunks, on no chunk boundary", START + 7 * MIN + 30_000, START + 21 * MIN + 30_000],
    ["a range past the horizon", END - 90_000, END],
    ["a range before any data", START - 20 * MIN, START - 10 * MIN],
  ];

  it("seals complete chunks up to a minute before the newest bucket, not ahead of the clock", async () => {
    const spans = await sealChartChunks(pg.$client, () => END + 10 * MIN);
    const newest = END - 30_000;
    expect(spans).toEqual([{ from: START, to: chunkOf(newest - MIN) }]);
    const chunks = await pg.$client<{ n: number }[]>`SELECT count(*)::int AS n FROM worker_chart_30s`;
    expect(chunks[0]!.n).toBe(3 * ((chunkOf(newest - MIN) - START) / CHART_CHUNK_MS));
    // Nothing new stored: nothing to seal. A clock behind the data holds the horizon back.
    expect(await sealChartChunks(pg.$client, () => END + 10 * MIN)).toEqual([]);
    expect(await horizon()).toBe(chunkOf(newest - MIN));
  });

  it.each(RANGES)("reads %s as the rollup's rows give it", async (_, from, to) => {
    const chunked = await read(from, to);
    expect(chunked).toEqual(await fromRows(from, to));
    for (const charts of [["util"], ["hitRate"]] as const)
      expect(await read(from, to, charts)).toEqual(await fromRows(from, to, charts));
    // One worker's read (the worker page's chart), w3 with its idle stretch among them.
    for (const w of ["w1", "w3", "w-unknown"])
      expect(await read(from, to, undefined, w)).toEqual(await fromRows(from, to, undefined, w));
    expect((await read(START, END, undefined, "w3")).map((c) => c.workerId)).toEqual(["w3"]);
  });

  it("reads the chunks themselves (a changed chunk shows)", async () => {
    const at = START + 5 * MIN;
    const before = await read(at, at + CHART_CHUNK_MS, ["util"]);
    const w1 = before.find((w) => w.workerId === "w1")!;
    expect(w1.util.length).toBe(10);
    const bytes = Buffer.alloc(80);
    for (let k = 0; k < 10; k++) bytes.writeDoubleBE(0.5, k * 8);
    const [saved] = await pg.$client`SELECT util FROM worker_chart_30s WHERE chunk = ${at} AND worker_id = 'w1'`;
    await pg.$client`UPDATE worker_chart_30s SET util = ${bytes} WHERE chunk = ${at} AND worker_id = 'w1'`;
    try {
      const after = await read(at, at + CHART_CHUNK_MS, ["util"]);
      expect(after.find((w) => w.workerId === "w1")!.util).toEqual(Array(10).fill(0.5));
      expect((await read(at, at + CHART_CHUNK_MS, ["util"], "w1"))[0]!.util).toEqual(Array(10).fill(0.5));
    } finally {
      await pg.$client`UPDATE worker_chart_30s SET util = ${saved!.util} WHERE chunk = ${at} AND worker_id = 'w1'`;
    }
  });

  it("keeps which buckets a chunk has in 10 bytes, and reads chunks packed before with each bucket's start", async () => {
    const at = START + 10 * MIN;
    const [row] = await pg.$client<{ t: Buffer }[]>`
      SELECT t FROM worker_chart_30s WHERE chunk = ${at} AND worker_id = 'w1'`;
    // The chunk's start as −start − 1, then its ten buckets' bitmap.
    const want = Buffer.alloc(10);
    want.writeBigInt64BE(BigInt(-at - 1));
    want.writeUInt16BE(0x3ff, 8);
    expect(row!.t).toEqual(want);
    const before = await read(START - 30 * MIN, END + MIN);
    // The earlier form: ten big-endian int8 bucket starts, as chunks sealed before the bitmap still hold.
    const starts = Buffer.alloc(80);
    for (let k = 0; k < 10; k++) starts.writeBigInt64BE(BigInt(at + k * 30_000), k * 8);
    await pg.$client`UPDATE worker_chart_30s SET t = ${starts} WHERE chunk = ${at} AND worker_id = 'w1'`;
    try {
      expect(await read(START - 30 * MIN, END + MIN)).toEqual(before);
      expect(await read(at + 45_000, at + 4 * MIN, ["hitRate"], "w1")).toEqual(
        await fromRows(at + 45_000, at + 4 * MIN, ["hitRate"], "w1"),
      );
    } finally {
      await pg.$client`UPDATE worker_chart_30s SET t = ${row!.t} WHERE chunk = ${at} AND worker_id = 'w1'`;
    }
  });

  it("packs a chunk again when a batch writes behind the horizon (a late sample, a new worker)", async () => {
    const h = await horizon();
    const late = [
      ...samples(START + 12 * MIN + 2_500, START + 12 * MIN + 30_000, ["w1"]).map((e) => ({
        ...e,
        id: `late-${e.id}`,
      })),
      ...samples(h - 7 * MIN, h - 6 * MIN, ["w9"]),
    ].sort((a, b) => a.ts - b.ts);
    await insertEventsPg(pg, late as IngestRow[]);
    expect(await horizon()).toBe(h);
    const ws = await read(START - 30 * MIN, END + MIN);
    expect(ws.map((w) => w.workerId)).toEqual(["w1", "w2", "w3", "w9"]);
    expect(ws).toEqual(await fromRows(START - 30 * MIN, END + MIN));
  });

  it("the leader's sealer seals on start, and its stop waits for that pass", async () => {
    const before = await horizon();
    await insertEventsPg(pg, samples(END, END + 20 * MIN));
    // Another process's rollup write holds the lock: the pass waits for it, and so does stop.
    const other = await pg.$client.reserve();
    await other`BEGIN`;
    await other.unsafe(`SELECT pg_advisory_xact_lock(${ROLLUP_LOCK})`);
    let stopped = false;
    let done: Promise<void>;
    try {
      done = startChartSealer(pg.$client, 3_600_000)().then(() => {
        stopped = true;
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(stopped).toBe(false);
    } finally {
      await other`COMMIT`;
      other.release();
    }
    await done;
    expect(await horizon()).toBe(chunkOf(END + 20 * MIN - 30_000 - MIN));
    expect(await horizon()).toBeGreaterThan(before);
    expect(await read(START - 30 * MIN, END + 21 * MIN)).toEqual(await fromRows(START - 30 * MIN, END + 21 * MIN));
  });

  it("trims the chunks with retention's rows, packing the chunk the cut splits", async () => {
    const cut = START + 11 * MIN + 30_000;
    await sweepRetentionPg(pg, { raw: cut + 30_000 - 1, detail: 0, summary: 0 });
    const left = await pg.$client<{ m: number }[]>`SELECT min(minute) AS m FROM worker_stats_30s`;
    expect(Number(left[0]!.m)).toBe(cut);
    const chunks = await pg.$client<{ c: number }[]>`SELECT min(chunk) AS c FROM worker_chart_30s`;
    expect(Number(chunks[0]!.c)).toBe(chunkOf(cut));
    for (const [, from, to] of RANGES) expect(await read(from, to)).toEqual(await fromRows(from, to));
    // A cut on a chunk boundary keeps the chunk starting there whole.
    const boundary = chunkOf(cut) + CHART_CHUNK_MS;
    expect(await trimChartChunksPg(pg.$client, boundary)).toBe(3);
    const after = await pg.$client<{ c: number }[]>`SELECT min(chunk) AS c FROM worker_chart_30s`;
    expect(Number(after[0]!.c)).toBe(boundary);
  });
});
