import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { KVBM } from "../server/sources/prometheus/fixtures";
import { INGEST_TOKEN, postEvents, uniq } from "./fixtures/telemetry";

// Storage tiers end to end: tiered kv events and requests that split cached tokens by tier, posted through the real
// ingest API, show on the worker page (blocks per tier, offload/onboard, hit rate per tier), on a trace turn, and in
// the overview's cached-token split.

test("tiered KV events and per-tier cached tokens show on the worker page, a trace turn and the overview", async ({
  page,
}, testInfo) => {
  const worker = uniq("tier-w");
  const session = uniq("tier-s");
  const id = (s: string) => `${worker}-${s}`;
  const now = Date.now();
  const at = (minutesAgo: number) => now - minutesAgo * 60_000;
  const hashes = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(from + i));
  const kv = (name: string, ts: number, o: Record<string, unknown>) => ({
    id: id(name),
    kind: "kv.stored",
    ts,
    worker_id: worker,
    parent_hash: null,
    ...o,
  });
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
    {
      id: id("up"),
      kind: "worker.up",
      ts: at(8),
      worker_id: worker,
      role: "aggregated",
      model: "m",
      kv_total_blocks: 64,
      block_size: 16,
    },
    kv("s-dev", at(7), { block_hashes: hashes(1, 8), session_id: session }),
    {
      id: id("r-off"),
      kind: "kv.removed",
      ts: at(5),
      worker_id: worker,
      block_hashes: hashes(5, 4),
      reason: "offloaded",
    },
    kv("s-host", at(5), { block_hashes: hashes(5, 4), storage_tier: "host" }),
    kv("s-disk", at(4), { block_hashes: hashes(20, 2), storage_tier: "disk" }),
    kv("s-onboard", at(2), { block_hashes: hashes(5, 2), onboarded_from: "host" }),
    turn("t1", at(6), { cached_tokens: 0 }),
    turn("t2", at(2), {
      cached_tokens: 900,
      cached_tokens_by_tier: { device: 500, host: 300, disk: 100 },
      prefetched_tokens: 250,
    }),
  ]);

  // An unknown tier rejects that event alone; the rest of the batch is kept.
  const res = await page.request.post("/api/ingest", {
    headers: { Authorization: `Bearer ${INGEST_TOKEN}`, "Content-Type": "application/x-ndjson" },
    data: [
      kv("bad-tier", at(1), { block_hashes: ["99"], storage_tier: "nvme" }),
      kv("ok-shared", at(1), { block_hashes: ["98"], storage_tier: "shared" }),
    ]
      .map((e) => JSON.stringify(e))
      .join("\n"),
  });
  const reply = (await res.json()) as { accepted: number; rejected: number; items: { id?: string; error?: string }[] };
  expect(reply).toMatchObject({ accepted: 1, rejected: 1 });
  expect(reply.items.find((i) => i.id === id("bad-tier"))?.error).toContain(
    "storage_tier: must be one of device, host, disk, shared",
  );

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
  await page.screenshot({ path: testInfo.outputPath("trace-turn.png"), fullPage: true });
  await turns
    .getByRole("row")
    .filter({ hasText: id("t1") })
    .click();
  await expect(details).toContainText(`Turn ${id("t1")}`);
  await expect(details.getByTestId("turn-cached-from")).toHaveCount(0);

  await page.goto("/?range=15m");
  await expect(page.getByTestId("kpi-cached-tiers")).toBeVisible();
  await expect(page.getByRole("region", { name: "Cached tokens from lower tiers" })).toContainText("host");
});

test("a KVBM /metrics endpoint added on the Sources page reports its tier series and feeds the worker page", async ({
  page,
}, testInfo) => {
  let scrapes = 0;
  const server = http.createServer((_req, res) => {
    scrapes++;
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
    res.end(KVBM({ d2h: 100 + 30 * scrapes, onboardH2d: 40 + 10 * scrapes, host: 0.42, disk: 0.05 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    const id = uniq("kvbm")
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, "-")
      .slice(0, 40);
    const worker = `${id}-w`;
    await page.goto("/sources");
    await page.getByRole("button", { name: "Add Prometheus /metrics" }).click();
    const form = page.getByRole("form", { name: "Add Prometheus /metrics source" });
    await form.getByLabel("Source id").fill(id);
    await form.getByLabel("Source name").fill("KVBM under test");
    await form.getByLabel("Metrics URL").fill(url);
    await form.getByLabel("Target kind").selectOption("kvbm");
    await form.getByLabel("Scrape interval (s)").fill("1");
    await form.getByLabel("Worker id (optional)").fill(worker);
    await form.getByRole("button", { name: "Add source" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Saved source ${id}` })).toBeVisible();

    const row = page.getByTestId(`source-row-${id}`);
    await expect(row.getByTestId(`source-state-${id}`)).toHaveText("ok");
    const line = page.getByTestId(`source-kvbm-${id}`);
    // A rate needs two scrapes; it is over the real interval between them (about 1 s), so only its shape is fixed.
    await expect(line).toContainText(
      new RegExp(`KVBM for ${worker}: offload GPU→host \\d+(\\.\\d+)? blocks/s, host→disk 0 blocks/s`),
    );
    await expect(line).toContainText("host hits 42.0%");
    await expect(line).toContainText("disk hits 5.0%");
    await expect(line).toContainText("(8 kvbm_* series)");
    await page.screenshot({ path: testInfo.outputPath("sources-kvbm.png"), fullPage: true });

    // The worker has no other telemetry: the KVBM minutes alone give its tier view (dashed KVBM lines).
    await postEvents(page.request, [
      {
        id: `${worker}-up`,
        kind: "worker.up",
        ts: Date.now(),
        worker_id: worker,
        role: "aggregated",
        model: "m",
        kv_total_blocks: 64,
        block_size: 16,
      },
    ]);
    await page.goto(`/workers/${encodeURIComponent(worker)}?range=15m`);
    const tiers = page.getByRole("region", { name: "Storage tiers" });
    await expect(tiers.getByTestId("worker-tiers-summary")).toContainText("KVBM only");
    await expect(tiers.getByLabel(`Offload and onboard rates of ${worker}`)).toBeVisible();
    await expect(tiers.getByText("Host (KVBM)")).toBeVisible();
    await expect(tiers.getByText("Offload (KVBM)")).toBeVisible();

    await page.goto("/sources");
    await row.getByRole("button", { name: "Remove KVBM under test" }).click();
    await row.getByRole("button", { name: "Confirm remove" }).click();
    await expect(page.getByTestId(`source-row-${id}`)).toHaveCount(0);
  } finally {
    await new Promise((r) => server.close(r));
  }
});
