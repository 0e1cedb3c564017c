import type { ChildProcess } from "node:child_process";
import { devNull } from "node:os";
import { expect, test } from "@playwright/test";
import { adminApi, adminMutation } from "./fixtures/auth";
import { startSimProcess } from "../test/sim-process";
import { uniq } from "./fixtures/telemetry";

// Policies belong to a cluster: a version published for staging reaches staging's target and no other, and copying
// the form to production opens production's editor with the change against production's current version.

const CONTROL_TOKEN = "e2e-cluster-control-token-0123456789";
const sims: ChildProcess[] = [];

test.describe.configure({ timeout: 120_000 });
test.afterEach(() => {
  for (const s of sims.splice(0)) s.kill("SIGTERM");
});

/** A simulated cluster whose control API takes pushes (its telemetry goes nowhere); resolves to that API's URL. */
async function startSim(): Promise<string> {
  const started = startSimProcess(["--scenario", "steady", "--seed", "3", "--out", devNull], CONTROL_TOKEN);
  sims.push(started.child);
  return started.controlUrl;
}

/** What a simulated cluster runs of one kind. */
async function running(url: string, kind: string): Promise<{ version: number; document: Record<string, unknown> }> {
  const res = await fetch(`${url}/control/policies`, { headers: { authorization: `Bearer ${CONTROL_TOKEN}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as Record<string, { version: number; document: Record<string, unknown> }>)[kind]!;
}

test("a frontend change published to staging reaches staging's target only, and is copied to production", async ({
  page,
  baseURL,
}) => {
  const [stagingUrl, prodUrl] = await Promise.all([startSim(), startSim()]);
  const staging = uniq("staging").toLowerCase();
  const prod = uniq("prod").toLowerCase();
  const api = await adminApi(baseURL!);
  for (const [cluster, url] of [
    [staging, stagingUrl],
    [prod, prodUrl],
  ] as const)
    await adminMutation(api, "policies.targets.upsert", {
      target: {
        id: cluster,
        name: `Target of ${cluster}`,
        cluster,
        adapter: "sim",
        config: { url, token: CONTROL_TOKEN },
        kinds: ["frontend"],
        enabled: true,
      },
    });
  await api.dispose();

  // Staging's editor starts from the defaults: nothing was published for it, whatever the default cluster has.
  await page.goto(`/policies?kind=frontend&cluster=${staging}`);
  await expect(page.getByLabel("Scope", { exact: true })).toHaveValue(staging);
  const panel = page.getByRole("tabpanel", { name: /^Frontend/ });
  await expect(panel.getByText("Nothing published yet")).toBeVisible();
  await panel.getByRole("checkbox", { name: "Strip the billing preamble" }).check();
  await panel.getByRole("button", { name: "Review changes" }).click();
  await expect(
    panel.getByRole("heading", { name: `Review: changes from defaults, to publish as ${staging} v1` }),
  ).toBeVisible();
  await panel.getByLabel("Comment").fill("staging first");
  await panel.getByRole("button", { name: "Publish v1" }).click();
  await expect(panel.getByText("Published v1.")).toBeVisible();

  // The reconciler pushes it to staging's cluster; production's runs what it started with.
  const stagingRow = page.getByTestId(`rollout-${staging}`);
  await expect(stagingRow).toContainText("in sync", { timeout: 30_000 });
  await expect(page.getByTestId(`rollout-${prod}`)).toHaveCount(0);
  expect(await running(stagingUrl, "frontend")).toMatchObject({
    version: 1,
    document: { strip_anthropic_preamble: true },
  });
  expect(await running(prodUrl, "frontend")).toMatchObject({ version: 0 });

  // Copy to production: its editor opens with the change reviewed against production's current version (none yet).
  await panel.getByLabel("Copy this form to").selectOption(prod);
  await panel.getByRole("button", { name: `Open in ${prod}'s editor` }).click();
  await expect(page).toHaveURL(new RegExp(`cluster=${prod}`));
  await expect(page.getByLabel("Scope", { exact: true })).toHaveValue(prod);
  const prodPanel = page.getByRole("tabpanel", { name: /^Frontend/ });
  await expect(prodPanel.getByTestId("frontend-copied")).toContainText(`Copied from ${staging} v1`);
  const changes = prodPanel.getByRole("table", { name: "Changes to publish" });
  await expect(changes.getByRole("row").nth(1)).toContainText(/strip_anthropic_preamble\s*false\s*→\s*true/);
  await prodPanel.getByLabel("Comment").fill("same as staging");
  await prodPanel.getByRole("button", { name: "Publish v1" }).click();
  await expect(prodPanel.getByText("Published v1.")).toBeVisible();
  await expect(page.getByTestId(`rollout-${prod}`)).toContainText("in sync", { timeout: 30_000 });
  expect(await running(prodUrl, "frontend")).toMatchObject({
    version: 1,
    document: { strip_anthropic_preamble: true },
  });

  // The audit log of staging lists staging's changes only.
  await page.goto(`/policies/audit?cluster=${staging}`);
  const audit = page.getByRole("table", { name: "Audit log" });
  await expect(audit.getByRole("row").filter({ hasText: "publish" }).first()).toContainText(staging);
  await expect(audit.getByRole("cell", { name: prod, exact: true })).toHaveCount(0);
  await expect(audit.getByRole("cell", { name: staging, exact: true }).first()).toBeVisible();
});

test("a malformed cluster in the URL is named and the default cluster is shown", async ({ page }) => {
  await page.goto("/policies?kind=frontend&cluster=prod%20eu");
  await expect(page.getByRole("alert").filter({ hasText: "is not a policy scope" })).toContainText("prod eu");
  await expect(page.getByLabel("Scope", { exact: true })).toHaveValue("default");
});
