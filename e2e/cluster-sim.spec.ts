import { spawn } from "node:child_process";
import { expect, test } from "@playwright/test";
import { apiQuery } from "./fixtures/telemetry";
import { nodeArgs } from "../server/compiled";
import { docScreenshot } from "./fixtures/doc-screenshot";

// The cluster pages over a short burst of the simulated cluster: each shows what the API computes.

function runSimulator(baseURL: string): Promise<number> {
  const args = [...nodeArgs("sim"), "--scenario", "steady", "--seed", "5", "--fast", "--duration", "90"];
  args.push(
    "--start",
    // The burst ends a few seconds before now: its workers still count as present (their last samples are under a
    // minute old) when the overview is shown first, as the README's screenshot.
    String(Date.now() - 100_000),
    "--dashboard",
    baseURL,
    "--token",
    process.env.SWITCHYARD_E2E_TOKEN!,
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

test.describe.configure({ timeout: 180_000 });

test("a simulated burst: workers, routing, planner and overview show what the API returns", async ({
  page,
  request,
  baseURL,
}, testInfo) => {
  expect(await runSimulator(baseURL!)).toBe(0);
  const range = { preset: "15m" };

  const summary = await apiQuery<{ workersPresent: number; requests: number }>(request, "overview.summary", range);
  await page.goto("/?range=15m");
  await expect(page.getByTestId("kpi-workers")).toHaveText(String(summary.workersPresent));
  await expect(page.getByText(`${summary.requests.toLocaleString("en-US")} requests`)).toBeVisible();
  await docScreenshot(page, testInfo, "overview");

  const { workers } = await apiQuery<{ workers: { workerId: string; hitRate: number | null }[] }>(
    request,
    "workers.list",
    range,
  );
  const simWorkers = workers.filter((w) => /^w\d+$/.test(w.workerId) && w.hitRate !== null);
  expect(simWorkers.length).toBeGreaterThanOrEqual(8);
  await page.goto("/workers?range=15m");
  const table = page.getByRole("table", { name: "Workers" });
  for (const w of simWorkers.slice(0, 3)) {
    await expect(table.getByRole("link", { name: w.workerId, exact: true })).toBeVisible();
    await expect(page.getByTestId(`hit-rate-${w.workerId}`)).toHaveText(`${(w.hitRate! * 100).toFixed(1)}%`);
  }

  type Decision = {
    requestId: string;
    chosenWorkerId: string;
    explanation: { winnerId: string; runnerUpId: string | null; text: string };
  };
  const { items: decisions } = await apiQuery<{ items: Decision[] }>(request, "routing.list", { range });
  const d = decisions[0]!;
  expect(d.explanation.winnerId).toBe(d.chosenWorkerId);
  await page.goto("/routing?range=15m");
  await page.getByRole("button", { name: `Candidates of ${d.requestId}` }).click();
  const candidates = page.getByRole("table", { name: `Candidates of ${d.requestId}` });
  await expect(candidates.getByRole("row").filter({ hasText: "winner" })).toContainText(d.chosenWorkerId);
  if (d.explanation.runnerUpId)
    await expect(candidates.getByRole("row").filter({ hasText: "runner-up" })).toContainText(d.explanation.runnerUpId);
  await expect(page.getByTestId(`explanation-${d.requestId}`)).toContainText(d.explanation.text);

  const { items: plans } = await apiQuery<{ items: { id: string; reason: string }[] }>(request, "planner.list", {
    range,
  });
  expect(plans.length).toBeGreaterThan(0);
  await page.goto("/planner?range=15m");
  await expect(page.getByTestId(`planner-${plans[0]!.id}`)).toContainText(plans[0]!.reason);
});
