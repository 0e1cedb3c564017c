import type { ChildProcess } from "node:child_process";
import { expect, test, type APIRequestContext, type Locator } from "@playwright/test";
import { adminApi, adminMutation } from "./fixtures/auth";
import { startSimProcess } from "../test/sim-process";
import { fleetControlPath } from "../server/sim/fleet-names";
import { apiQuery, tryApiQuery } from "./fixtures/telemetry";

// The simulated fleet end to end: one simulator process runs production (two models) and staging, posting to the
// dashboard over HTTP. The fleet table shows both clusters' models side by side, the Workers page tells staging's w1
// from production's, a retention change published to staging reaches staging's control API only, and one published
// for production's second model reaches that model's workers only.

const CONTROL_TOKEN = "e2e-fleet-control-token-0123456789";
const GPT = "gpt-oss-120b";
const QWEN = "qwen3-coder-480b-a35b";
const sims: ChildProcess[] = [];

test.describe.configure({ timeout: 180_000 });
test.afterEach(() => {
  for (const s of sims.splice(0)) s.kill("SIGTERM");
});

/** What one cluster of the fleet (one model of it: `model`) runs of one kind, from its own control API. */
async function running(
  url: string,
  cluster: string,
  kind: string,
  model?: string,
): Promise<{ version: number; document: unknown }> {
  const query = model ? `?model=${encodeURIComponent(model)}` : "";
  const res = await fetch(`${url}${fleetControlPath(cluster)}/control/policies${query}`, {
    headers: { authorization: `Bearer ${CONTROL_TOKEN}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as Record<string, { version: number; document: unknown }>)[kind]!;
}

/** The latest retention version published for a scope (0: none yet, which the query answers as null). */
async function publishedIn(request: APIRequestContext, cluster: string): Promise<number> {
  const latest = await tryApiQuery<{ version: number }>(request, "policies.latest", { cluster, kind: "retention" });
  return latest?.version ?? 0;
}

/**
 * Fill the panel's first TTL with `ttl`, or with `ttl` + 60 when it shows `ttl` already (a retry: its first attempt
 * published that very value, and an unchanged form cannot be published). Returns the value filled.
 */
async function changedTtl(panel: Locator, ttl: string): Promise<string> {
  const field = panel.getByLabel("TTL (s)").first();
  const value = (await field.inputValue()) === ttl ? String(Number(ttl) + 60) : ttl;
  await field.fill(value);
  return value;
}

test("a simulated fleet: both clusters side by side, workers told apart, a change published to staging only", async ({
  page,
  request,
  baseURL,
}) => {
  const started = startSimProcess(
    ["--scenario", "fleet", "--seed", "11", "--dashboard", baseURL!, "--token", process.env.SWITCHYARD_E2E_TOKEN!],
    CONTROL_TOKEN,
  );
  sims.push(started.child);
  const url = await started.controlUrl;
  const api = await adminApi(baseURL!);
  const scopes: [string, string][] = [
    ["production", "production"],
    ["production-gpt", `production@${GPT}`],
    ["staging", "staging"],
  ];
  for (const [id, cluster] of scopes)
    await adminMutation(api, "policies.targets.upsert", {
      target: {
        id: `fleet-${id}`,
        name: `Fleet ${id}`,
        cluster,
        adapter: "sim",
        config: { url: `${url}${fleetControlPath(cluster.split("@")[0]!)}`, token: CONTROL_TOKEN },
        kinds: ["retention"],
        enabled: true,
      },
    });
  await api.dispose();

  // Each cluster and model has a row of its own once requests finish (live: the first within seconds).
  await page.goto("/?range=5m");
  const fleet = page.getByRole("table", { name: "Fleet by cluster and model" });
  for (const id of [
    "fleet-production-qwen3-coder-480b-a35b",
    "fleet-production-gpt-oss-120b",
    "fleet-staging-qwen3-coder-480b-a35b",
  ])
    await expect(fleet.getByTestId(id)).toBeVisible({ timeout: 60_000 });

  // The overview of staging alone: its cards count staging's workers, and the page says what the rest covers.
  await page.goto("/?range=5m&cluster=staging");
  await expect(page.getByLabel("Cluster", { exact: true })).toHaveValue("staging");
  await expect(page.getByTestId("scope-note")).toContainText("These cards, trends and findings show cluster staging");
  const [all, staged] = await Promise.all([
    apiQuery<{ workersPresent: number }>(request, "overview.summary", { preset: "5m" }),
    apiQuery<{ workersPresent: number }>(request, "overview.summary", { preset: "5m", cluster: "staging" }),
  ]);
  expect(staged.workersPresent).toBeGreaterThan(0);
  expect(staged.workersPresent).toBeLessThan(all.workersPresent);
  await page.goto("/?range=5m");

  // The fleet table links to the Workers page scoped to one cluster and model: production's second model's
  // workers (w101, …) alone.
  await fleet.getByTestId("fleet-production-gpt-oss-120b").getByRole("link", { name: "Workers" }).click();
  await expect(page).toHaveURL(/cluster=production&model=gpt-oss-120b/);
  const workers = page.getByRole("table", { name: "Workers" });
  await expect(workers.getByRole("link", { name: "production/w101", exact: true })).toBeVisible();
  await expect(workers.getByRole("link", { name: "production/w1", exact: true })).toHaveCount(0);
  await expect(page.getByLabel("Model", { exact: true })).toHaveValue("gpt-oss-120b");

  // All clusters: w1 of staging and w1 of production are two workers. Then staging alone, kept in the URL.
  await page.getByLabel("Cluster", { exact: true }).selectOption("");
  await page.getByLabel("Model", { exact: true }).selectOption("");
  for (const w of ["staging/w1", "production/w1", "production/w101"])
    await expect(workers.getByRole("link", { name: w, exact: true })).toBeVisible();
  await page.getByLabel("Cluster", { exact: true }).selectOption("staging");
  await expect(page).toHaveURL(/cluster=staging/);
  await expect(workers.getByRole("link", { name: "production/w1", exact: true })).toHaveCount(0);
  await page.reload();
  await expect(page.getByLabel("Cluster", { exact: true })).toHaveValue("staging");
  await workers.getByRole("link", { name: "staging/w1", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Worker staging/w1" })).toBeVisible();

  // A retention change for staging reaches staging's members and not production's.
  const before = (await running(url, "staging", "retention")).version;
  await page.goto("/policies?kind=retention&cluster=staging");
  const panel = page.getByRole("tabpanel", { name: /^Retention/ });
  const stagingTtl = await changedTtl(panel, "1800");
  await panel.getByRole("button", { name: "Review changes" }).click();
  await panel.getByLabel("Comment").fill("staging: shorter system-prompt TTL");
  await panel.getByRole("button", { name: /^Publish v\d+$/ }).click();
  await expect(panel.getByText(/^Published v\d+\.$/)).toBeVisible();
  await expect(page.getByTestId("rollout-fleet-staging")).toContainText("in sync", { timeout: 60_000 });
  await expect(page.getByTestId("rollout-fleet-production")).toHaveCount(0);
  const staging = await running(url, "staging", "retention");
  expect(staging.version).toBeGreaterThan(before);
  expect(JSON.stringify(staging.document)).toContain(`"ttl_seconds":${stagingTtl}`);
  expect((await running(url, "production", "retention")).version).toBe(0);

  // A retention change for production's second model: its scope is picked from the menu, the version is that
  // scope's own (v1 on a first attempt), and it reaches the gpt-oss workers only (qwen's, in the same cluster, keep
  // version 0).
  await page.goto("/policies?kind=retention&cluster=production");
  await page.getByLabel("Scope", { exact: true }).selectOption(`production@${GPT}`);
  await expect(page).toHaveURL(new RegExp(`cluster=production%40${GPT}`));
  const gptPanel = page.getByRole("tabpanel", { name: /^Retention/ });
  const gptTtl = await changedTtl(gptPanel, "900");
  await gptPanel.getByRole("button", { name: "Review changes" }).click();
  await gptPanel.getByLabel("Comment").fill("gpt-oss: shorter system-prompt TTL");
  const publish = gptPanel.getByRole("button", { name: /^Publish v\d+$/ });
  const version = Number((await publish.textContent())!.replace(/\D+/g, ""));
  // The scope's own numbering: v1 unless an earlier attempt of this test published there already.
  expect(version).toBe(1 + (await publishedIn(request, `production@${GPT}`)));
  await publish.click();
  await expect(gptPanel.getByText(`Published v${version}.`)).toBeVisible();
  await expect(page.getByTestId("rollout-fleet-production-gpt")).toContainText("in sync", { timeout: 60_000 });
  await expect(page.getByTestId("rollout-fleet-production")).toHaveCount(0);
  const gpt = await running(url, "production", "retention", GPT);
  expect(gpt.version).toBe(version);
  expect(JSON.stringify(gpt.document)).toContain(`"ttl_seconds":${gptTtl}`);
  expect((await running(url, "production", "retention", QWEN)).version).toBe(0);
  expect((await running(url, "production", "retention")).version).toBe(0);
});
