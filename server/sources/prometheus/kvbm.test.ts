import { describe, expect, it } from "vitest";
import { testDb } from "../../../test/db";
import { kvbmRows } from "../../../db/store/tiers";
import { sqliteStore } from "../../../db/store/store";
import { sourceReporter } from "../status";
import { getSourceStatus } from "../../../db/store/sources";
import { sqliteSink } from "../sink";
import { prometheusSourceConfig } from "../../../lib/sources/prometheus-config";
import { KVBM, VLLM_NEW } from "./fixtures";
import { emptyState, mapScrape } from "./map";
import { detectKind } from "./metric-names";
import { parseExposition } from "./parse";
import { scrapeOnce } from "./scraper";
import type { OutboundFetch } from "../../outbound/fetch";

const T0 = 1_764_400_000_000;
const cfg = (kind = "auto") =>
  prometheusSourceConfig.parse({ url: "http://gpu-3:6880/metrics", kind, worker_id: "w3" });

describe("KVBM scrapes", () => {
  it("a KVBM-only endpoint is detected as kvbm and reports no worker.stats", () => {
    expect(detectKind(parseExposition(KVBM()).families.keys())).toBe("kvbm");
    const r = mapScrape(parseExposition(KVBM()), cfg(), "src", T0, emptyState());
    expect(r).toMatchObject({ kind: "kvbm", events: [], missing: [], kvbm_worker: "w3" });
  });

  it("counters become blocks moved and rates over the second scrape; hit rates are read as 0–1", () => {
    const first = mapScrape(parseExposition(KVBM()), cfg(), "src", T0, emptyState());
    expect(first.kvbm).toMatchObject({
      blocks: { offload_d2h: null, onboard_h2d: null },
      host_hit_rate: 0.42,
      disk_hit_rate: 0.05,
    });
    const second = mapScrape(
      parseExposition(KVBM({ d2h: 400, onboardH2d: 100, host: 55 })),
      cfg(),
      "src",
      T0 + 15_000,
      first.state,
    );
    expect(second.kvbm).toMatchObject({
      blocks: { offload_d2h: 300, offload_h2d: 0, offload_d2d: 0, onboard_h2d: 60, onboard_d2d: 0 },
      per_s: { offload_d2h: 20, onboard_h2d: 4 },
      host_hit_rate: 0.55,
    });
    expect(second.kvbm!.series).toContain("kvbm_offload_blocks_d2h");
  });

  it("a counter that went down (a restart) counts its new value", () => {
    const first = mapScrape(parseExposition(KVBM({ d2h: 1000 })), cfg(), "src", T0, emptyState());
    const second = mapScrape(parseExposition(KVBM({ d2h: 7 })), cfg(), "src", T0 + 10_000, first.state);
    expect(second.kvbm!.blocks.offload_d2h).toBe(7);
  });

  it("KVBM families served beside a vLLM worker's are read as well, and the worker's stats still map", () => {
    const r = mapScrape(parseExposition(VLLM_NEW() + KVBM()), cfg(), "src", T0, emptyState());
    expect(r.kind).toBe("vllm");
    expect(r.events).toHaveLength(1);
    expect(r.kvbm?.host_hit_rate).toBe(0.42);
  });

  it("a scrape without KVBM has none", () => {
    expect(mapScrape(parseExposition(VLLM_NEW()), cfg(), "src", T0, emptyState()).kvbm).toBeNull();
  });

  it("scrapeOnce stores the worker's KVBM minute and shows the reading on the source", async () => {
    const db = testDb();
    const bodies = [KVBM(), KVBM({ d2h: 160, onboardH2d: 70 })];
    const m0 = T0 - (T0 % 60_000);
    let at = m0 + 1_000;
    const fetchImpl: OutboundFetch = async () => ({ status: 200, contentType: "text/plain", text: bodies.shift()! });
    const report = sourceReporter(sqliteStore(db), "kvbm-3", "prometheus", "target");
    let state = emptyState();
    for (let i = 0; i < 2; i++) {
      state = await scrapeOnce(sqliteSink(db), "kvbm-3", cfg(), report, state, { now: () => at, fetch: fetchImpl });
      at += 20_000;
    }
    expect(await kvbmRows(sqliteStore(db), "w3", m0, m0 + 120_000)).toEqual([
      { minute: m0, offloaded: 60, onboarded: 30, hostHitRate: 0.42, diskHitRate: 0.05 },
    ]);
    const status = (await getSourceStatus(sqliteStore(db), "kvbm-3"))!;
    expect(status.lastError).toBeNull();
    expect(status.detail).toMatchObject({
      detected_kind: "kvbm",
      kvbm: { worker_id: "w3", per_s: { offload_d2h: 3 }, host_hit_rate: 0.42 },
    });
  });
});
