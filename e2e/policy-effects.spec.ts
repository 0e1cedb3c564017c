import type { ChildProcess } from "node:child_process";
import { expect, test, type Page } from "@playwright/test";
import { adminApi, adminMutation } from "./fixtures/auth";
import { startSimProcess } from "../test/sim-process";
import { apiQuery, INGEST_TOKEN, tryApiQuery, uniq } from "./fixtures/telemetry";

// The control plane end to end: an operator edits a policy in the form, the reconciler pushes it to a live
// simulated cluster (its own process, over HTTP), the target acknowledges it, and the cluster behaves differently.

const CONTROL_TOKEN = "e2e-sim-control-token-0123456789";
let sim: ChildProcess | null = null;

test.describe.configure({ timeout: 240_000 });
test.afterEach(() => {
  sim?.kill("SIGTERM");
  sim = null;
});

/** A live simulated cluster posting to the e2e dashboard; resolves to its control API's base URL. */
function startSim(baseURL: string, scenario: string): Promise<string> {
  const started = startSimProcess(
    ["--scenario", scenario, "--seed", "11", "--dashboard", baseURL, "--token", INGEST_TOKEN],
    CONTROL_TOKEN,
  );
  sim = started.child;
  return started.controlUrl;
}

/** Register the simulator as a policy target for the given kinds (as the Sources page does). */
async function registerTarget(baseURL: string, url: string, kinds: string[]): Promise<{ id: string; name: string }> {
  const target = {
    id: uniq("sim").toLowerCase(),
    name: `E2E simulated cluster ${kinds.join("+")}`,
    adapter: "sim",
    config: { url, token: CONTROL_TOKEN },
    kinds,
    enabled: true,
  };
  const api = await adminApi(baseURL);
  await adminMutation(api, "policies.targets.upsert", { target });
  await api.dispose();
  return target;
}

/** Review and publish the open form with a comment; returns the published version. */
async function reviewAndPublish(page: Page, comment: string): Promise<number> {
  await page.getByRole("button", { name: "Review changes" }).click();
  await page.getByLabel("Comment").fill(comment);
  const publish = page.getByRole("button", { name: /^Publish v\d+$/ });
  const version = Number((await publish.textContent())!.replace(/\D+/g, ""));
  await publish.click();
  await expect(page.getByText(`Published v${version}.`)).toBeVisible();
  return version;
}

type Summary = { requests: number; prefixHitRate: number | null };
const summary = (page: Page, from: number, to: number) =>
  apiQuery<Summary>(page.request, "overview.summary", { from, to });

test("stripping the billing preamble in the form reaches the cluster and lifts the prefix hit rate", async ({
  page,
  baseURL,
}) => {
  // The simulator starts with its scenario's policies (preamble kept); it becomes a target only after the baseline,
  // so a frontend version an earlier spec published cannot change the cluster before we measure it.
  const url = await startSim(baseURL!, "preamble");
  const t0 = Date.now();

  await page.goto("/policies?kind=frontend");
  const strip = page.getByLabel("Strip the billing preamble");
  if (await strip.isChecked()) {
    // The latest published version strips: publish "keep" first, so registering the target changes nothing.
    await strip.uncheck();
    await reviewAndPublish(page, "e2e: keep the preamble for the baseline");
  }

  // Baseline once caches are warm (the scenario ramps its sessions over 30 s): the preamble kept.
  await expect
    .poll(async () => Date.now() - t0 >= 50_000 && (await summary(page, t0 + 30_000, Date.now())).requests >= 30, {
      timeout: 90_000,
      intervals: [2_000],
    })
    .toBe(true);
  const before = await summary(page, t0 + 30_000, Date.now());
  expect(before.prefixHitRate).not.toBeNull();
  const target = await registerTarget(baseURL!, url, ["frontend"]);

  await strip.check();
  const version = await reviewAndPublish(page, "e2e: strip the billing preamble so sessions share block 0");
  const row = page.getByTestId(`rollout-${target.id}`);
  await expect(row).toContainText("in sync", { timeout: 30_000 });
  await expect(row).toContainText(`v${version}`);
  const synced = Date.now();

  // The same cluster after the change: requests now share the system prompt's blocks across sessions.
  await expect
    .poll(
      async () => {
        if (Date.now() - synced < 15_000) return null;
        return (await summary(page, synced + 3_000, Date.now())).prefixHitRate;
      },
      { timeout: 90_000, intervals: [3_000] },
    )
    .toBeGreaterThan(before.prefixHitRate! + 0.15);
  const after = await summary(page, synced + 3_000, Date.now());
  console.log(
    `prefix hit rate: ${before.prefixHitRate!.toFixed(3)} with the preamble, ${after.prefixHitRate!.toFixed(3)} after stripping it (v${version})`,
  );

  // The change is marked where its effect shows. The Workers page is the heaviest to draw (a chart per worker of every
  // spec in this project's last 15 minutes): under CI's load it has needed more than the default 20 s to appear.
  await page.goto("/workers?range=15m");
  await expect(page.getByTestId("policy-marks")).toContainText(`frontend v${version} published`, { timeout: 60_000 });
});

test("lowering the decode KV scale-up threshold in the form makes the planner add a decode worker", async ({
  page,
  baseURL,
}) => {
  const url = await startSim(baseURL!, "surge");
  // Start from the defaults, so the form's edit below is a change: on a retry the first attempt had already published
  // these very thresholds, the review found no changes and its Publish button stayed disabled until the test timed out.
  const latest = await tryApiQuery<{ version: number }>(page.request, "policies.latest", { kind: "autoscaling" });
  const api = await adminApi(baseURL!);
  await adminMutation(api, "policies.publish", {
    kind: "autoscaling",
    document: {},
    baseVersion: latest?.version ?? null,
    comment: "e2e: the default autoscaling policy before the form's edit",
  });
  await api.dispose();
  const target = await registerTarget(baseURL!, url, ["autoscaling"]);

  await page.goto("/policies?kind=autoscaling");
  const decode = page.getByRole("group", { name: "Decode" });
  await decode.getByLabel("KV utilization scale-down").fill("0.05");
  await decode.getByLabel("KV utilization scale-up").fill("0.1");
  await page.getByLabel("Adjustment interval").fill("10");
  await page.getByLabel("Grace period").fill("10");
  const version = await reviewAndPublish(page, "e2e: scale decode early");
  await expect(page.getByTestId(`rollout-${target.id}`)).toContainText("in sync", { timeout: 30_000 });
  const synced = Date.now();

  type Decision = {
    id: string;
    ts: number;
    role: string;
    action: string;
    replicasBefore: number;
    replicasAfter: number;
    reason: string;
  };
  let added: Decision | undefined;
  await expect
    .poll(
      async () => {
        const { items } = await apiQuery<{ items: Decision[] }>(page.request, "planner.list", {
          range: { from: synced - 60_000, to: Date.now() + 60_000 },
          role: "decode",
          actionsOnly: true,
          limit: 50,
        });
        added = items.find((d) => d.action === "scale_up" && d.ts >= synced - 1_000);
        return Boolean(added);
      },
      { timeout: 90_000, intervals: [2_000] },
    )
    .toBe(true);
  expect(added!.replicasAfter).toBeGreaterThan(added!.replicasBefore);
  expect(added!.reason).toContain("0.10");

  // The API answered; the page's reads, beside two other dashboards on CI's 2 cores, were still loading after the 20 s
  // default once. What the page shows is checked here, not how fast.
  await page.goto("/planner?range=15m");
  await expect(page.getByTestId(`planner-${added!.id}`)).toContainText(added!.reason, { timeout: 60_000 });
  await expect(page.getByTestId("policy-marks")).toContainText(`autoscaling v${version} published`, {
    timeout: 60_000,
  });
});
