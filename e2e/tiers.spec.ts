import { expect, test } from "@playwright/test";
import { INGEST_TOKEN, postEvents, uniq } from "./fixtures/telemetry";

// Storage tiers end to end: tiered kv events and requests that split cached tokens by tier, posted through the real
// ingest API, show on the worker page (blocks per tier, offload/onboard, hit rate per tier), on a trace turn, and in
// the overview's cached-token split.

test("tiered KV events and per-tier cached tokens show on the worker page, a trace turn and the overview", async ({ page }, testInfo) => {
  const worker = uniq("tier-w");
  const session = uniq("tier-s");
  const id = (s: string) => `${worker}-${s}`;
  const now = Date.now();
  const at = (minutesAgo: number) => now - minutesAgo * 60_000;
  const hashes = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(from + i));
  const kv = (name: string, ts: number, o: Record<string, unknown>) => ({ id: id(name), kind: "kv.stored", ts, worker_id: worker, parent_hash: null, ...o });
  const turn = (name: string, ts: number, o: Record<string, unknown>) => ({
    id: id(name),
    kind: "request",
    ts,
    request_id: id(name),
    session_id: session,
    trajectory_id: `${session}-main`,
    worker_id: worker,
    api: "messages",
    model: "m",
    arrived_at: ts,
    first_token_at: ts + 120,
    finished_at: ts + 900,
    input_tokens: 1000,
    output_tokens: 40,
    status: "ok",
    ...o,
  });

  await postEvents(page.request, [
    { id: id("up"), kind: "worker.up", ts: at(8), worker_id: worker, role: "aggregated", model: "m", kv_total_blocks: 64, block_size: 16 },
    kv("s-dev", at(7), { block_hashes: hashes(1, 8), session_id: session }),
    { id: id("r-off"), kind: "kv.removed", ts: at(5), worker_id: worker, block_hashes: hashes(5, 4), reason: "offloaded" },
    kv("s-host", at(5), { block_hashes: hashes(5, 4), storage_tier: "host" }),
    kv("s-disk", at(4), { block_hashes: hashes(20, 2), storage_tier: "disk" }),
    kv("s-onboard", at(2), { block_hashes: hashes(5, 2), onboarded_from: "host" }),
    turn("t1", at(6), { cached_tokens: 0 }),
    turn("t2", at(2), { cached_tokens: 900, cached_tokens_by_tier: { device: 500, host: 300, disk: 100 }, prefetched_tokens: 250 }),
  ]);

  // An unknown tier rejects that event alone; the rest of the batch is kept.
  const res = await page.request.post("/api/ingest", {
    headers: { Authorization: `Bearer ${INGEST_TOKEN}`, "Content-Type": "application/x-ndjson" },
    data: [kv("bad-tier", at(1), { block_hashes: ["99"], storage_tier: "nvme" }), kv("ok-shared", at(1), { block_hashes: ["98"], storage_tier: "shared" })].map((e) => JSON.stringify(e)).join("\n"),
  });
  const reply = (await res.json()) as { accepted: number; rejected: number; items: { id?: string; error?: string }[] };
  expect(reply).toMatchObject({ accepted: 1, rejected: 1 });
  expect(reply.items.find((i) => i.id === id("bad-tier"))?.error).toContain("storage_tier: must be one of device, host, disk, shared");

  await page.goto(`/workers/${encodeURIComponent(worker)}?range=15m`);
  await expect(page.getByRole("heading", { name: `Worker ${worker}`, level: 1 })).toBeVisible();
  const tiers = page.getByRole("region", { name: "Storage tiers" });
  await expect(tiers).toBeVisible();
  const summary = tiers.getByTestId("worker-tiers-summary");
  await expect(summary).toContainText("GPU (device), Host memory, Local disk, Shared storage");
  await expect(summary).toContainText("7 blocks offloaded, 2 onboarded");
  await expect(summary).toContainText("250 tokens prefetched");
  await expect(tiers.getByLabel(`Blocks per tier on ${worker}`)).toBeVisible();
  await expect(tiers.getByLabel(`Offload and onboard rates of ${worker}`)).toBeVisible();
  await expect(tiers.getByLabel(`Hit rate per tier on ${worker}`)).toBeVisible();
  await tiers.scrollIntoViewIfNeeded();
  await page.screenshot({ path: testInfo.outputPath("worker-tiers.png"), fullPage: true });

  await page.goto(`/sessions/${encodeURIComponent(session)}`);
  const turns = page.getByRole("table", { name: "Turns" });
  const tiered = turns.getByRole("row").filter({ hasText: id("t2") });
  await tiered.focus();
  await page.keyboard.press("Enter");
  const details = page.getByTestId("turn-details");
  await expect(details.getByTestId("turn-cached-from")).toHaveText("device 500 · host 300 · disk 100 · prefetched 250");
  await turns.getByRole("row").filter({ hasText: id("t1") }).click();
  await expect(details).toContainText(`Turn ${id("t1")}`);
  await expect(details.getByTestId("turn-cached-from")).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath("trace-turn.png"), fullPage: true });

  await page.goto("/?range=15m");
  await expect(page.getByTestId("kpi-cached-tiers")).toBeVisible();
  await expect(page.getByRole("region", { name: "Cached tokens from lower tiers" })).toContainText("host");
});
