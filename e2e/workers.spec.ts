import { expect, test, type APIRequestContext, type Locator } from "@playwright/test";
import { apiQuery, postEvents, uniq } from "./fixtures/telemetry";

type ListRow = { workerId: string; hitRate: number | null; state: string; joined: boolean; left: boolean };

async function listWorkers(request: APIRequestContext): Promise<ListRow[]> {
  return (await apiQuery<{ workers: ListRow[] }>(request, "workers.list", { preset: "15m" })).workers;
}

/** The worker ids of this run, in the order the table shows them. */
async function orderOf(table: Locator, ids: string[]): Promise<string[]> {
  const links = await table.getByRole("link").allTextContents();
  return links.filter((t) => ids.includes(t));
}

function seed(run: string, now: number) {
  const [a, b, c] = [`${run}-a`, `${run}-b`, `${run}-c`];
  const events: object[] = [];
  const stats = (w: string, ts: number, q: number, h: number, active: number) => ({
    id: `${w}-s-${ts}`,
    kind: "worker.stats",
    ts,
    worker_id: w,
    kv_active_blocks: active,
    kv_total_blocks: 1000,
    requests_running: 2,
    requests_waiting: 1,
    prefix_query_tokens: q,
    prefix_hit_tokens: String(h),
  });
  for (const [w, role] of [
    [a, "decode"],
    [b, "prefill"],
    [c, "decode"],
  ] as const) {
    events.push({
      id: `${w}-up`,
      kind: "worker.up",
      ts: now - 60_000,
      worker_id: w,
      role,
      model: "m",
      kv_total_blocks: 1000,
      block_size: 16,
    });
  }
  // a: 9,000 of 10,000 queried tokens hit; b: 10 of 100; c: none queried, then it leaves.
  events.push(stats(a, now - 40_000, 1_000, 500, 700), stats(a, now - 20_000, 11_000, 9_500, 800));
  events.push(stats(b, now - 40_000, 0, 0, 50), stats(b, now - 20_000, 100, 10, 100));
  events.push(stats(c, now - 40_000, 0, 0, 10), {
    id: `${c}-down`,
    kind: "worker.down",
    ts: now - 5_000,
    worker_id: c,
    reason: "drained",
  });
  const cand = (w: string, overlap: number) => ({
    worker_id: w,
    overlap_blocks: overlap,
    prefill_blocks: 10 - overlap,
    decode_blocks: 4,
    cost: 14 - overlap,
  });
  for (const [k, chosen] of [
    [0, a],
    [1, b],
  ] as const) {
    events.push({
      id: `${run}-rd${k}`,
      kind: "route.decision",
      ts: now - 30_000 + k,
      request_id: `${run}-r${k}`,
      prompt_blocks: 10,
      chosen_worker_id: chosen,
      candidates: [cand(a, 5), cand(b, 3)],
      overlap_credit: 1,
      prefill_load_scale: 1,
      temperature: 0,
    });
  }
  for (let k = 0; k < 2; k++) {
    events.push({
      id: `${run}-rq${k}`,
      kind: "request",
      ts: now - 30_000,
      request_id: `${run}-rq${k}`,
      api: "messages",
      model: "m",
      worker_id: a,
      arrived_at: now - 30_000 + k,
      input_tokens: 100,
      cached_tokens: 90,
      output_tokens: 5,
      status: "ok",
    });
  }
  return { ids: [a, b, c], events };
}

test("the workers table shows seeded workers with the API's hit rate, sorts, and links to a worker", async ({
  page,
  request,
}) => {
  const run = uniq("wk");
  const { ids, events } = seed(run, Date.now());
  const [a, b, c] = ids as [string, string, string];
  await postEvents(request, events);

  const api = await listWorkers(request);
  const apiA = api.find((w) => w.workerId === a)!;
  expect(apiA.hitRate).toBeCloseTo(0.9, 12);
  expect(api.find((w) => w.workerId === b)!.hitRate).toBeCloseTo(0.1, 12);

  await page.goto("/workers?range=15m");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workers" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  const table = page.getByRole("table", { name: "Workers" });
  // The first answer lists every worker the suite has made so far; on a loaded 2-core CI machine it took over 10 s.
  await expect(table.getByRole("link", { name: a, exact: true })).toBeVisible({ timeout: 30_000 });
  // The 2-second refresh updates the rows in place: the link is the same element after it (a link replaced on every
  // refresh slips from under a click and loses keyboard focus).
  const link = await table.getByRole("link", { name: a, exact: true }).elementHandle();
  for (let i = 0; i < 2; i++) await page.waitForResponse((r) => r.url().includes("workers.list"));
  // Two frames after the second reply: the first reply's render has been committed.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  expect(await link!.evaluate((n) => n.isConnected)).toBe(true);
  await expect(page.getByTestId(`hit-rate-${a}`)).toHaveText(`${(apiA.hitRate! * 100).toFixed(1)}%`);
  await expect(page.getByTestId(`hit-rate-${b}`)).toHaveText("10.0%");
  await expect(page.getByTestId(`hit-rate-${c}`)).toHaveText("—");

  const rowA = table.getByRole("row").filter({ has: page.getByRole("link", { name: a, exact: true }) });
  const rowC = table.getByRole("row").filter({ has: page.getByRole("link", { name: c, exact: true }) });
  await expect(rowA.getByText("joined", { exact: true })).toBeVisible();
  await expect(rowC.getByText("left", { exact: true })).toBeVisible();
  await expect(rowC.getByText("down", { exact: true })).toBeVisible();

  const header = table.getByRole("columnheader", { name: "Prefix hit rate" });
  await header.getByRole("button").click();
  await expect(header).toHaveAttribute("aria-sort", "descending");
  expect(await orderOf(table, ids)).toEqual([a, b, c]);
  await header.getByRole("button").press("Enter");
  await expect(header).toHaveAttribute("aria-sort", "ascending");
  expect(await orderOf(table, ids)).toEqual([b, a, c]);

  await expect(page.getByRole("heading", { name: "KV utilization by worker" })).toBeVisible();
  await expect(page.getByRole("img", { name: `${a} KV utilization over time` })).toBeVisible();

  await table.getByRole("link", { name: a, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/workers/${a}\\?range=15m`));
  await expect(page.getByRole("heading", { name: `Worker ${a}` })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workers" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  await expect(page.getByTestId("kpi-hit-rate")).toHaveText("90.0%");
  await expect(page.getByTestId("kpi-kv")).toHaveText("80.0%");
  await expect(page.getByTestId("kpi-served")).toHaveText("2");
  await expect(page.getByTestId("kpi-won")).toHaveText("1");
  await expect(page.getByTestId("kpi-lost")).toHaveText("1");
  const lost = page.getByRole("table", { name: "Latest routing decisions lost" });
  await expect(lost.getByRole("link", { name: b, exact: true })).toBeVisible();
  await expect(page.getByText("No kv.stored events from this worker in this range.")).toBeVisible();
});

test("an unknown worker says so instead of failing", async ({ page }) => {
  const id = uniq("missing");
  await page.goto(`/workers/${id}?range=5m`);
  await expect(page.getByRole("heading", { name: `No worker “${id}”` })).toBeVisible();
});
