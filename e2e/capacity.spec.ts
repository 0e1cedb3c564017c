import { expect, test } from "@playwright/test";
import { API_TOKEN, postEvents, uniq } from "./fixtures/telemetry";

// The Capacity page on a cluster of its own: agents on two small workers whose conversations outgrow the KV, so the
// LRU curve climbs past today's capacity; the page answers a target in blocks and GB, and the replayed points arrive
// beside the curve. A cluster whose requests carry no chains says so instead of drawing a flat line.

const BLOCK = 16;
const KV = 48;

/** `sessions` agents of `turns` turns each in the last 40 minutes, each turn extending its prompt by 3 blocks. */
function traffic(cluster: string, now: number, sessions: number, turns: number, chains = true): object[] {
  const workers = [`${cluster}-w0`, `${cluster}-w1`];
  const events: object[] = workers.map((w) => ({
    id: `${w}-up`,
    kind: "worker.up",
    ts: now - 45 * 60_000,
    cluster,
    worker_id: w,
    role: "aggregated",
    model: "qwen3-coder-480b-a35b",
    kv_total_blocks: KV,
    block_size: BLOCK,
  }));
  // Block hashes of this run only. Each session's second block is its own: sessions sharing one would form a group
  // the overview's unstable-prefix finding compares (another spec looks for that finding on its own traffic).
  const base = (now % 1_000_000_000) * 1_000;
  for (let s = 0; s < sessions; s++) {
    const chain = [String(base), String(base + 1 + s), String(base + 100 + s), String(base + 200 + s)];
    for (let t = 0; t < turns; t++) {
      chain.push(...[0, 1, 2].map((k) => String(base + 1_000 + 100_000 * (s + 1) + 10 * t + k)));
      const at = now - 40 * 60_000 + (t * sessions + s) * 20_000;
      const id = `${cluster}-r${s}-${t}`;
      events.push({
        id,
        kind: "request",
        ts: at + 900,
        cluster,
        request_id: id,
        session_id: `${cluster}-s${s}`,
        trajectory_id: `${cluster}-s${s}`,
        api: "chat_completions",
        model: "qwen3-coder-480b-a35b",
        worker_id: workers[s % 2],
        arrived_at: at,
        first_token_at: at + 300,
        finished_at: at + 900,
        input_tokens: chain.length * BLOCK,
        cached_tokens: t === 0 ? 0 : (chain.length - 3) * BLOCK,
        output_tokens: 8,
        status: "ok",
        ...(chains
          ? {
              block_size: BLOCK,
              sequence_hashes: chain.map((_, i) => String(base + 500_000_000 + s * 1000 + i)),
              local_hashes: [...chain],
            }
          : {}),
      });
    }
  }
  return events;
}

test("the Capacity page answers a target from the recorded chains, with replayed points beside the curve", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const cluster = uniq("cap");
  await postEvents(page.request, traffic(cluster, Date.now(), 6, 8));

  // Scripts: the same curves over HTTP with a read-or-higher token, exactly at the sizes asked.
  const res = await page.request.get(`/api/capacity?cluster=${cluster}&capacities=0,48,96`, {
    headers: { Authorization: `Bearer ${API_TOKEN}` },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { block_size: number; curves: { scope: string; points: { blocks: number }[] }[] };
  expect(body.block_size).toBe(BLOCK);
  expect(body.curves.map((c) => c.scope)).toEqual(["shared", `worker:${cluster}-w0`, `worker:${cluster}-w1`]);
  for (const c of body.curves) expect(c.points.map((p) => p.blocks)).toEqual([0, 48, 96]);

  await page.goto(`/capacity?cluster=${cluster}&range=1h&target=0.6`);
  await expect(page.getByRole("heading", { name: "Capacity", level: 1 })).toBeVisible();
  const answer = page.getByTestId("capacity-answer");
  await expect(answer).toContainText(/60 % needs [\d,]+ blocks \([\d.]+ GB\) of KV per worker/, { timeout: 60_000 });
  await expect(page.getByRole("application", { name: "Prefix hit rate against KV capacity per worker" })).toBeVisible();
  await expect(page.getByText(/Exact: an LRU cache of every size over 48 turns/)).toBeVisible();
  await expect(page.getByText(/GB: qwen3-coder-480b-a35b: 62 layers/)).toBeVisible();

  // A new target answers again.
  await page.getByLabel("Target prefix hit rate").fill("70");
  await page.getByRole("button", { name: "Answer" }).click();
  await expect(answer).toContainText(/70 % (needs|is out of reach)/, { timeout: 60_000 });
  await expect(page).toHaveURL(/target=0.7/);
  await page.getByLabel("Target prefix hit rate").fill("140");
  await page.getByRole("button", { name: "Answer" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Enter a hit rate from 1 to 100 %." })).toBeVisible();

  // The replayed points: today's capacity, the knee and the largest, each with the curve's figure beside it.
  const replayed = page.getByRole("table", { name: "Replayed capacities" });
  await expect(replayed.getByRole("row")).toHaveCount(4, { timeout: 120_000 });
  await expect(replayed).toContainText("48 blocks");
  await expect(replayed).toContainText("today");
  await expect(page.getByText(/routes every turn again/)).toBeVisible();

  // The tier grid around today's GPU KV, and the CSV of the same curves.
  await expect(page.getByRole("table", { name: "Tier grid" })).toContainText("(today)");
  const csv = await page.request.get((await page.getByRole("link", { name: "Download CSV" }).getAttribute("href"))!);
  expect(csv.status()).toBe(200);
  expect((await csv.text()).split("\n")[0]).toBe("scope,blocks,tokens,gigabytes,hit_rate,hit_tokens");
});

test("a cluster whose requests carry no chains says so instead of drawing a flat line", async ({ page }) => {
  const cluster = uniq("cap-bare");
  await postEvents(page.request, traffic(cluster, Date.now(), 2, 3, false));
  await page.goto(`/capacity?cluster=${cluster}&range=1h`);
  await expect(page.getByTestId("capacity-empty")).toContainText("No block chains in this window", { timeout: 60_000 });
  await expect(page.getByRole("application", { name: /Prefix hit rate/ })).toHaveCount(0);
});
