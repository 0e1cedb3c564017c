import { expect, test } from "@playwright/test";
import { postEvents, uniq } from "./fixtures/telemetry";

type Decision = {
  role: string;
  metric: string;
  observed: number;
  up: number;
  down: number;
  action: string;
  before: number;
  after: number;
  reason: string;
};

function plannerDecision(id: string, ts: number, d: Decision) {
  return {
    id,
    kind: "planner.decision",
    ts,
    role: d.role,
    metric: d.metric,
    observed: d.observed,
    scale_up_threshold: d.up,
    scale_down_threshold: d.down,
    action: d.action,
    replicas_before: d.before,
    replicas_after: d.after,
    reason: d.reason,
  };
}

test("the planner page shows each decision's reason, thresholds and replicas, newest first", async ({
  page,
  request,
}) => {
  const run = uniq("pl");
  // A quiet window three days back that no other spec writes to.
  const base = Date.now() - 3 * 86_400_000 - Math.floor(Math.random() * 3_600_000);
  const from = base - 60_000;
  const to = base + 5 * 60_000;
  const prefill = { role: "prefill", metric: "prefill_queue" };
  await postEvents(request, [
    plannerDecision(`${run}-1`, base, {
      ...prefill,
      observed: 0.6,
      up: 0.5,
      down: 0.2,
      action: "scale_up",
      before: 2,
      after: 3,
      reason: `scale up: prefill queue 0.60 above 0.50 [${run}]`,
    }),
    plannerDecision(`${run}-2`, base + 30_000, {
      ...prefill,
      observed: 0.35,
      up: 0.7,
      down: 0.3,
      action: "none",
      before: 3,
      after: 3,
      reason: `no change: prefill queue 0.35 between 0.30 and 0.70 [${run}]`,
    }),
    plannerDecision(`${run}-3`, base + 60_000, {
      role: "decode",
      metric: "decode_kv_utilization",
      observed: 0.95,
      up: 0.9,
      down: 0.5,
      action: "scale_up",
      before: 4,
      after: 5,
      reason: `scale up: decode KV utilization 0.95 above 0.90 [${run}]`,
    }),
  ]);

  await page.goto(`/planner?from=${from}&to=${to}`);
  const table = page.getByRole("table", { name: "Planner decisions" });
  const rows = table.getByRole("row");
  await expect(rows).toHaveCount(4);
  // Newest first; the thresholds shown are the ones each decision carried.
  await expect(rows.nth(1)).toContainText(`scale up: decode KV utilization 0.95 above 0.90 [${run}]`);
  await expect(table.getByTestId(`planner-${run}-3`)).toContainText("4 → 5");
  await expect(table.getByTestId(`planner-${run}-3`)).toContainText("50.0% / 90.0%");
  await expect(table.getByTestId(`planner-${run}-2`)).toContainText("0.30 / 0.70");
  await expect(table.getByTestId(`planner-${run}-1`)).toContainText("0.20 / 0.50");
  await expect(table.getByTestId(`planner-${run}-1`)).toContainText(`scale up: prefill queue 0.60 above 0.50 [${run}]`);
  await expect(table.getByTestId(`planner-${run}-1`)).toContainText("2 → 3");

  const prefillPanel = page.getByRole("region", { name: /^prefill/ });
  await expect(
    prefillPanel.getByRole("heading", { name: /3 replicas now · 2 decisions · 1 up, 0 down/ }),
  ).toBeVisible();
  await expect(prefillPanel.getByRole("region", { name: "Prefill queue vs. thresholds" })).toBeVisible();
  await expect(
    page.getByRole("region", { name: /^decode/ }).getByRole("heading", { name: /5 replicas now/ }),
  ).toBeVisible();

  await page.getByLabel("Role").selectOption("prefill");
  await page.getByRole("checkbox", { name: "Only scale-ups and -downs" }).check();
  await expect(rows).toHaveCount(2);
  await expect(table.getByTestId(`planner-${run}-1`)).toBeVisible();
});

test("a planner decision posted now appears without a reload", async ({ page, request }) => {
  await page.goto("/planner?range=5m");
  await expect(page.getByRole("heading", { name: "Planner", level: 1 })).toBeVisible();
  const run = uniq("pl-live");
  await postEvents(request, [
    plannerDecision(`${run}-1`, Date.now() - 1_000, {
      role: "aggregated",
      metric: "decode_kv_utilization",
      observed: 0.42,
      up: 0.9,
      down: 0.5,
      action: "scale_down",
      before: 3,
      after: 2,
      reason: `scale down: KV utilization 0.42 below 0.50 [${run}]`,
    }),
  ]);
  const row = page.getByTestId(`planner-${run}-1`);
  await expect(row).toContainText(`scale down: KV utilization 0.42 below 0.50 [${run}]`);
  await expect(row).toContainText("scale down");
  await expect(row).toContainText("3 → 2");
});
