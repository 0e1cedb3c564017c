import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PageEngine, PageStore } from "../../test/page-stores";
import { policyContentHash } from "../control/content-hash";
import { retentionPolicy } from "../../lib/policies/policies";
import { parseEvent, type TelemetryEvent } from "../ingest/events";
import { latestPredictionFor } from "../preview/prediction";
import { START, WINDOW, RECORDED_SECONDS } from "../preview/test-support";
import { runScenario, T0 } from "../sim/test-support";

// The previews procedures written once and run on each engine (previews-store.test.ts: SQLite; previews.pg.test.ts:
// PostgreSQL): a preview replays the window read from that engine, its result is kept there and re-opened, and bad
// input is refused the same way. previews.test.ts checks the replay's figures against the simulator (SQLite).

const NOW = T0 + RECORDED_SECONDS * 1000;
const CANDIDATE = { rules: [{ name: "keep-conversation", match: { segment: "conversation" }, priority: 70 }] };

/** The pressure scenario's recorded events, as the senders would post them (of `cluster` when given). */
export function recordedEvents(cluster?: string, seed = 1): TelemetryEvent[] {
  const events: TelemetryEvent[] = [];
  for (const e of runScenario({ scenario: "pressure", seconds: RECORDED_SECONDS, seed })) {
    const p = parseEvent({ ...(JSON.parse(JSON.stringify(e)) as object), ...(cluster ? { cluster } : {}) });
    if (p.ok) events.push(p.event);
  }
  return events;
}

/** Start a preview and poll it to its end. */
async function finished(api: ReturnType<PageStore["caller"]>, input: Parameters<typeof api.previews.start>[0]) {
  const started = await api.previews.start(input);
  let job = started;
  while (job.status === "queued" || job.status === "running") {
    await new Promise((r) => setTimeout(r, 20));
    job = await api.previews.status({ id: started.id });
  }
  return job;
}

async function caught(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TRPCError) return err;
    throw err;
  }
  throw new Error("expected a TRPCError");
}

const details = (e: TRPCError) => (e.cause as { details?: Record<string, unknown> } | undefined)?.details ?? {};

export function previewsCases(e: PageEngine): void {
  describe.skipIf(e.skip)(`previews procedures on ${e.engine}`, () => {
    let seeded: PageStore;
    const api = () => seeded.caller(() => NOW);
    // The default cluster's traffic and staging's (another run): a preview replays its own cluster's alone.
    beforeAll(async () => {
      seeded = await e.seeded([...recordedEvents(), ...recordedEvents("staging", 2)]);
    }, 120_000);
    afterAll(() => seeded?.close());

    it("replays the recorded window, keeps the result and answers from it: start again, stored, prediction", async () => {
      const document = retentionPolicy.parse(CANDIDATE);
      expect(await api().previews.stored({ kind: "retention", document })).toBeNull();
      const started = await api().previews.start({ kind: "retention", document, window: WINDOW, baseline: START });
      let job = started;
      while (job.status === "queued" || job.status === "running") {
        await new Promise((r) => setTimeout(r, 20));
        job = await api().previews.status({ id: started.id });
      }
      expect(job.status).toBe("done");
      const r = job.result!;
      expect(r.window).toEqual(WINDOW);
      expect(r.measured.requests).toBeGreaterThan(20);
      expect(r.baseline.workers.map((w) => w.worker_id)).toEqual(["w1", "w2"]);
      expect(r.candidate.hit_rate).not.toBeNull();
      const again = await api().previews.start({ kind: "retention", document, window: WINDOW, baseline: START });
      expect(again.status).toBe("done");
      expect(again.result).toEqual(r);
      expect(await api().previews.stored({ kind: "retention", document })).toEqual(r);
      const hash = policyContentHash("retention", document);
      expect(await latestPredictionFor(seeded.store, "retention", hash)).toMatchObject({
        hit_rate: r.candidate.hit_rate,
        ttft_p95_ms: r.candidate.ttft_p95_ms,
        window: WINDOW,
      });
      expect(await latestPredictionFor(seeded.store, "retention", "0".repeat(64))).toBeNull();
    }, 120_000);

    it("replays the asked cluster's traffic, workers and versions only, and keeps its result apart", async () => {
      const document = retentionPolicy.parse(CANDIDATE);
      const asked = { kind: "retention" as const, document, window: WINDOW, baseline: START };
      const staging = await finished(api(), { ...asked, scope: { cluster: "staging" } });
      expect(staging.status).toBe("done");
      const r = staging.result!;
      expect(r.scope).toBe("staging");
      expect(r.cluster).toMatchObject({ workers: { aggregated: 2 }, source: "observed" });
      const defaults = await finished(api(), asked);
      expect(defaults.result!.scope).toBe("default");
      // Two recordings of one scenario with other seeds: each preview measured its own cluster's requests alone.
      const inWindow = (events: TelemetryEvent[]) =>
        events.filter((x) => x.kind === "request" && x.arrived_at >= WINDOW.from && x.arrived_at < WINDOW.to).length;
      const [own, other] = [inWindow(recordedEvents("staging", 2)), inWindow(recordedEvents())];
      expect(own).not.toBe(other);
      expect([r.measured.requests, defaults.result!.measured.requests]).toEqual([own, other]);
      expect(await api().previews.stored({ kind: "retention", document, cluster: "staging" })).toEqual(r);
      const empty = await caught(api().previews.start({ ...asked, scope: { cluster: "prod-eu" } }));
      expect(empty.message).toBe("no recorded traffic of cluster prod-eu in this window: nothing to replay");
      const bad = await caught(api().previews.start({ ...asked, scope: { cluster: "prod eu" } }));
      expect(bad.code).toBe("BAD_REQUEST");
    }, 120_000);

    it("refuses an empty window (flagged empty) and one over the limit, field by field", async () => {
      const empty = await caught(
        api().previews.start({ kind: "routing", document: {}, window: { from: T0 - 7_200_000, to: T0 - 3_600_000 } }),
      );
      expect(empty.code).toBe("BAD_REQUEST");
      expect(empty.message).toMatch(/no recorded traffic/);
      expect(details(empty).empty).toBe(true);
      const over = await caught(
        api().previews.start({ kind: "routing", document: {}, window: { from: 0, to: 86_400_001 } }),
      );
      expect(over.message).toMatch(/24 h/);
      expect(details(over).limit_ms).toBe(86_400_000);
    });

    it("refuses the probe's cluster (256 × 4,194,304 blocks of 1 token) before any replay, with the estimate", async () => {
      const err = await caught(
        api().previews.start({
          kind: "retention",
          document: {},
          window: WINDOW,
          cluster: { workers: 256, kv_total_blocks: 4_194_304, block_size: 1 },
        }),
      );
      expect(err.code).toBe("UNPROCESSABLE_CONTENT");
      expect(err.message).toMatch(/the limit is 1,024 MB \(SWITCHYARD_PREVIEW_MEMORY_MB\)/);
      expect(details(err).estimate_mb as number).toBeGreaterThan(12_288);
    });

    it.each([
      ["an invalid document", { kind: "retention", document: { rules: "none" } }],
      ["a document never previewed", { kind: "routing", document: { temperature: 0.3 } }],
    ] as const)("stored answers null for %s", async (_name, input) => {
      expect(await api().previews.stored(input)).toBeNull();
    });

    it("an unknown job is not found, and cancelling it changes nothing", async () => {
      expect((await caught(api().previews.status({ id: "p0-none" }))).code).toBe("NOT_FOUND");
      expect(await api().previews.cancel({ id: "p0-none" })).toEqual({ cancelled: false });
    });
  });
}
