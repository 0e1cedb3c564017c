import type { ChildProcess } from "node:child_process";
import { expect, test, type Page } from "@playwright/test";
import { adminApi, adminMutation } from "./fixtures/auth";
import { startSimProcess } from "../test/sim-process";
import { apiQuery, INGEST_TOKEN, uniq } from "./fixtures/telemetry";

// Guarded rollout end to end: a live simulated cluster (its own process) strips the billing preamble; an operator
// publishes a version that keeps it, with a guard on the hit rate; the hit rate falls, the guard trips and the console
// publishes the previous content again by itself, and the history, audit log and chart marks say why.

const CONTROL_TOKEN = "e2e-sim-guard-control-token-0123456789";
let sim: ChildProcess | null = null;

test.describe.configure({ timeout: 300_000 });
test.afterEach(() => {
  sim?.kill("SIGTERM");
  sim = null;
});

type Summary = { requests: number; prefixHitRate: number | null };
const summary = (page: Page, from: number, to: number) =>
  apiQuery<Summary>(page.request, "overview.summary", { from, to });

/** Review the open form and publish it with a comment (and whatever the guard fields hold); returns the version. */
async function reviewAndPublish(page: Page, comment: string, guard?: () => Promise<void>): Promise<number> {
  await page.getByRole("button", { name: "Review changes" }).click();
  await page.getByLabel("Comment").fill(comment);
  if (guard) await guard();
  const publish = page.getByRole("button", { name: /^Publish v\d+$/ });
  const version = Number((await publish.textContent())!.replace(/\D+/g, ""));
  await publish.click();
  await expect(page.getByText(`Published v${version}.`)).toBeVisible();
  return version;
}

test("a version that lowers the hit rate is rolled back by its guard, and the console says why", async ({
  page,
  baseURL,
}) => {
  const started = startSimProcess(
    ["--scenario", "preamble", "--seed", "11", "--dashboard", baseURL!, "--token", INGEST_TOKEN],
    CONTROL_TOKEN,
  );
  sim = started.child;
  const url = await started.controlUrl;

  // The good version: strip the per-session billing header so sessions share the system prompt's blocks.
  await page.goto("/policies?kind=frontend");
  const strip = page.getByLabel("Strip the billing preamble");
  await expect(strip).toBeVisible();
  if (!(await strip.isChecked()) || (await page.getByTestId("frontend-source").textContent())!.includes("Nothing")) {
    await strip.check();
    await reviewAndPublish(page, "e2e: strip the billing preamble (the good version)");
  }
  const target = { id: uniq("sim").toLowerCase(), name: "E2E guarded cluster", adapter: "sim" };
  const api = await adminApi(baseURL!);
  await adminMutation(api, "policies.targets.upsert", {
    target: { ...target, config: { url, token: CONTROL_TOKEN }, kinds: ["frontend"], enabled: true },
  });
  await api.dispose();
  await expect(page.getByTestId(`rollout-${target.id}`)).toContainText("in sync", { timeout: 30_000 });
  const synced = Date.now();

  // A minute of warm traffic under the good version, so the guard's before-window measures it.
  await expect
    .poll(
      async () => Date.now() - synced >= 60_000 && (await summary(page, synced + 20_000, Date.now())).requests >= 40,
      { timeout: 120_000, intervals: [3_000] },
    )
    .toBe(true);

  // The bad version, published with a guard: the hit rate may not fall more than 5 points within 2 minutes.
  await strip.uncheck();
  const bad = await reviewAndPublish(page, "e2e: keep the billing preamble (a bad idea)", async () => {
    await page.getByLabel("Add a guard").check();
    await page.getByLabel("Check TTFT p95").uncheck();
    await page.getByLabel("Hit rate may not fall more than (points)").fill("5");
    await page.getByLabel("Within (minutes after it is applied)").fill("2");
  });
  await expect(page.getByText(`Published v${bad}.`)).toContainText(
    "Guard: Hit rate may not fall more than 5 points within 2 min",
  );

  // The guard trips by itself and publishes the previous content as the next version.
  const rollback = page.getByTestId(`frontend-version-${bad + 1}`);
  await expect(rollback).toContainText(/rolled back by guard: hit rate −\d+\.\d points/, { timeout: 150_000 });
  await expect(rollback).toContainText("guard");
  const guardLine = page.getByTestId(`frontend-guard-${bad}`).first();
  await expect(guardLine).toContainText("tripped");
  await expect(guardLine).toContainText(`Rolled back by guard: hit rate −`);
  await expect(guardLine).toContainText(`v${bad + 1} restores the previous content`);
  await expect(page.getByTestId(`rollout-${target.id}`)).toContainText(`v${bad + 1}`, { timeout: 30_000 });
  await expect(strip).toBeChecked();
  console.log(`v${bad}: ${await guardLine.textContent()}`);

  // The impact panel of the bad version: measured on the target that applied it, no preview for its content.
  await page.getByRole("button", { name: `Impact of v${bad}` }).click();
  const impact = page.getByTestId("frontend-impact");
  await expect(impact).toContainText(`Impact of v${bad}`);
  await expect(impact).toContainText("No preview was run for this content.");
  await expect(impact.getByTestId("impact-target-sim")).toContainText(/hit rate \d+% → \d+%/);

  await page.goto("/policies/audit");
  await expect(page.getByText(/rolled back by guard: hit rate −\d+\.\d points \(as v\d+\)/).first()).toBeVisible();

  // The Workers page draws a chart per worker of every spec in this project's last 15 minutes: under CI's load it has
  // needed more than the default 20 s to appear.
  await page.goto("/workers?range=15m");
  await expect(page.getByTestId("policy-marks")).toContainText(
    new RegExp(`frontend v${bad} rolled back by guard: hit rate −\\d+\\.\\d points`),
    { timeout: 60_000 },
  );
});
