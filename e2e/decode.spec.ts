import { expect, test } from "@playwright/test";
import { postEvents, uniq } from "./fixtures/telemetry";

test("a worker's ITL and preemptions, and a turn's, reach the worker page and the session trace", async ({
  page,
  request,
}) => {
  const run = uniq("dec");
  const now = Date.now();
  const w = `${run}-w1`;
  const session = `${run}-sess`;
  const stats = (k: number, ts: number, preemptions: string) => ({
    id: `${w}-s${k}`,
    kind: "worker.stats",
    ts,
    worker_id: w,
    kv_active_blocks: 900,
    kv_total_blocks: 1000,
    requests_running: 4,
    requests_waiting: 2,
    prefix_query_tokens: "1000",
    prefix_hit_tokens: "100",
    preemptions,
    batch_tokens: 512,
  });
  const turn = (k: number, itl: number, p95: number, preemptions: number) => ({
    id: `${run}-r${k}`,
    kind: "request",
    ts: now - 20_000 + k * 1_000,
    request_id: `${run}-req${k}`,
    session_id: session,
    api: "messages",
    model: "m",
    worker_id: w,
    arrived_at: now - 30_000 + k * 1_000,
    first_token_at: now - 29_000 + k * 1_000,
    finished_at: now - 20_000 + k * 1_000,
    input_tokens: 1000,
    cached_tokens: 0,
    output_tokens: 100,
    status: "ok",
    itl_ms_mean: itl,
    itl_ms_p95: p95,
    preemptions,
  });
  await postEvents(request, [
    {
      id: `${w}-up`,
      kind: "worker.up",
      ts: now - 60_000,
      worker_id: w,
      role: "aggregated",
      model: "m",
      kv_total_blocks: 1000,
      block_size: 16,
    },
    stats(1, now - 50_000, "3"),
    stats(2, now - 10_000, "8"),
    turn(1, 20, 40, 0),
    turn(2, 30, 90, 2),
  ]);

  await page.goto(`/workers/${encodeURIComponent(w)}?range=15m`);
  await expect(page.getByTestId("kpi-itl")).toContainText("20 / 90 ms");
  await expect(page.getByTestId("kpi-preemptions")).toHaveText("5");
  await expect(page.getByText("512 tokens per pass")).toBeVisible();

  await page.goto(`/sessions/${encodeURIComponent(session)}`);
  const row = page
    .getByRole("table", { name: "Turns" })
    .getByRole("row")
    .filter({ hasText: `${run}-req2` });
  await expect(row).toBeVisible();
  await row.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("turn-decode")).toHaveText(
    "ITL mean 30.0 ms · p95 90.0 ms · preempted 2× (KV recomputed)",
  );
});
