import type { ChildProcess } from "node:child_process";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { startSimProcess } from "../test/sim-process";
import { adminApi, adminMutation } from "./fixtures/auth";
import { ALERTMANAGER_BIN, alertmanagerPresent, startAlertmanager, type Alertmanager } from "./fixtures/alertmanager";
import { apiQuery, INGEST_TOKEN, uniq } from "./fixtures/telemetry";

// Alerts end to end on a live simulated cluster, into a real Alertmanager (Debian's prometheus-alertmanager, started
// here). The `pressure` scenario runs two workers with little KV under sixteen long sessions, so each preempts about
// ten requests a minute. An operator adds Alertmanager as a receiver on the Sources page, switches the preemption rule
// on (above 5 a minute, held 10 s) in the policy editor's "Alert rules" tab and publishes it; the alert reads back
// from Alertmanager's API with the cluster and worker labels and a link to the worker's page. The operator then
// publishes the autoscaling policy that relieves the pressure (eight aggregated workers instead of two): the sessions
// spread, the preemptions fall under the threshold, and every alert resolves by itself, in Alertmanager too.

const CONTROL_TOKEN = "e2e-sim-control-token-0123456789";
let sim: ChildProcess | null = null;
let am: Alertmanager | null = null;
/** What to put back after the spec: later simulator specs share this dashboard's default cluster and rules. */
let restore: ((baseURL: string, request: APIRequestContext) => Promise<void>) | null = null;
/** The simulator's policy target, removed after the spec (its process is gone). */
let target: string | null = null;

test.describe.configure({ timeout: 420_000 });
test.afterEach(async ({ baseURL, request }) => {
  sim?.kill("SIGTERM");
  sim = null;
  await am?.stop();
  am = null;
  await restore?.(baseURL!, request);
  restore = null;
  if (target) {
    const api = await adminApi(baseURL!);
    await adminMutation(api, "policies.targets.remove", { id: target });
    await api.dispose();
    target = null;
  }
});

type Latest = { version: number; document: unknown } | null;
type Overview = { rules: { version: number | null; rules: unknown[] } };

/** The newest autoscaling version of the default cluster (null: none published). */
async function latestAutoscaling(request: APIRequestContext): Promise<Latest> {
  const input = encodeURIComponent(JSON.stringify({ json: { kind: "autoscaling" } }));
  const res = await request.get(`/api/trpc/policies.latest?input=${input}`);
  expect(res.status(), "policies.latest answered 200").toBe(200);
  return ((await res.json()) as { result: { data: { json: Latest } } }).result.data.json;
}
const overview = (request: APIRequestContext) =>
  apiQuery<Overview>(request, "alerts.overview", { from: Date.now() - 3_600_000, to: Date.now() + 60_000 });

/** Put the autoscaling policy and the alert rules of before back (each as a new version when it changed). */
async function restorer(request: APIRequestContext) {
  const autoscaling = await latestAutoscaling(request);
  const { rules } = await overview(request);
  return async (baseURL: string, request: APIRequestContext) => {
    const api = await adminApi(baseURL);
    const now = await latestAutoscaling(request);
    if (now && now.version !== autoscaling?.version)
      await adminMutation(api, "policies.publish", {
        kind: "autoscaling",
        document: autoscaling?.document ?? {},
        baseVersion: now.version,
        comment: "e2e: the autoscaling policy from before the alerts spec",
      });
    const after = (await overview(request)).rules;
    if (after.version !== rules.version)
      await adminMutation(api, "alerts.publishRules", {
        document: { rules: rules.rules },
        baseVersion: after.version,
        comment: "e2e: the alert rules from before the alerts spec",
      });
    await api.dispose();
  };
}

/** Register the simulator as a policy target for autoscaling (as the Sources page does). */
async function registerTarget(baseURL: string, url: string): Promise<string> {
  const id = uniq("sim").toLowerCase();
  const api = await adminApi(baseURL);
  await adminMutation(api, "policies.targets.upsert", {
    target: {
      id,
      name: "E2E simulated cluster under pressure",
      adapter: "sim",
      config: { url, token: CONTROL_TOKEN },
      kinds: ["autoscaling"],
      enabled: true,
    },
  });
  await api.dispose();
  return id;
}

async function addReceiver(page: Page, url: string): Promise<void> {
  await page.goto("/sources");
  await page.getByRole("button", { name: "Add alert receiver" }).click();
  const form = page.getByRole("form", { name: "Alert receiver" });
  await form.getByLabel("Name").fill(uniq("Alertmanager"));
  await form.getByLabel("URL").fill(url);
  await form.getByRole("button", { name: "Save receiver" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Saved receiver/ })).toBeVisible();
}

test("in the pressure scenario the preemption rule pages through Alertmanager, and resolves when the relieving policy is published", async ({
  page,
  baseURL,
}) => {
  test.skip(!alertmanagerPresent && process.env.CI !== "true", `${ALERTMANAGER_BIN} is not installed`);
  restore = await restorer(page.request);
  am = await startAlertmanager();
  const started = startSimProcess(
    ["--scenario", "pressure", "--seed", "11", "--dashboard", baseURL!, "--token", INGEST_TOKEN],
    CONTROL_TOKEN,
  );
  sim = started.child;
  const controlUrl = await started.controlUrl;
  await addReceiver(page, am.url);

  // The rule, in the policy editor's "Alert rules" tab: on, the simulator's cluster, held 10 s (above 5 a minute over
  // the last minute).
  await page.goto("/policies");
  await page.getByRole("tab", { name: "Alert rules" }).click();
  await expect(page).toHaveURL(/kind=alerts/);
  const rules = page.getByRole("form", { name: "Alert rules" });
  await rules.getByLabel("preemptions on").check();
  await rules.getByLabel("preemptions cluster").fill("default");
  await rules.getByLabel("preemptions for seconds").fill("10");
  await rules.getByLabel("Comment").fill("page on preemptions");
  await rules.getByRole("button", { name: "Review changes" }).click();
  const changes = rules.getByRole("table", { name: "Changes to publish" });
  await expect(changes.getByRole("row", { name: /preemptions: enabled/ })).toContainText("true");
  await expect(changes.getByRole("row", { name: /preemptions: for_seconds/ })).toContainText("10");
  await rules.getByRole("button", { name: /^Publish rules/ }).click();
  await expect(page.getByRole("status").filter({ hasText: /Published alert rules version \d+/ })).toBeVisible();
  const published = Date.now();

  // Within a minute, Alertmanager holds the page with the cluster and worker labels and a link to the worker.
  const preemptions = { alertname: "preemptions", cluster: "default" };
  await expect.poll(async () => (await am!.active(preemptions)).length, { timeout: 60_000 }).toBeGreaterThan(0);
  console.log(
    `alerts: preemptions firing in Alertmanager ${((Date.now() - published) / 1000).toFixed(0)} s after publish`,
  );
  const [alert] = await am.active(preemptions);
  expect(alert!.labels).toMatchObject({ ...preemptions, severity: "critical" });
  const worker = alert!.labels.worker!;
  expect(worker).toMatch(/\S/);
  expect(alert!.annotations.link).toMatch(new RegExp(`/workers/[^?]*${encodeURIComponent(worker)}\\?range=15m$`));
  expect(alert!.annotations.summary).toMatch(new RegExp(`^${worker} preempts \\d+(\\.\\d+)? requests a minute`));
  await page.goto("/alerts?range=15m");
  await expect(page.getByRole("table", { name: "Firing alerts" })).toContainText(worker);

  // The relief: eight aggregated workers instead of two, published in the autoscaling form and pushed to the cluster.
  target = await registerTarget(baseURL!, controlUrl);
  await page.goto("/policies?kind=autoscaling");
  const aggregated = page.getByRole("group", { name: "Aggregated" });
  await aggregated.getByLabel("Max replicas").fill("8");
  await aggregated.getByLabel("Min replicas").fill("8");
  await page.getByRole("button", { name: "Review changes" }).click();
  await page.getByLabel("Comment").fill("e2e: eight aggregated workers to relieve the KV pressure");
  const publish = page.getByRole("button", { name: /^Publish v\d+$/ });
  const version = Number((await publish.textContent())!.replace(/\D+/g, ""));
  await publish.click();
  await expect(page.getByText(`Published v${version}.`)).toBeVisible();
  await expect(page.getByTestId(`rollout-${target}`)).toContainText("in sync", { timeout: 30_000 });
  const relieved = Date.now();

  // The new workers start (30 s), the sessions spread and the preemptions fall: every alert resolves by itself.
  await expect
    .poll(async () => (await am!.active(preemptions)).length, { timeout: 240_000, intervals: [5_000] })
    .toBe(0);
  console.log(`alerts: resolved in Alertmanager ${((Date.now() - relieved) / 1000).toFixed(0)} s after v${version}`);
  await page.goto("/alerts?range=15m");
  await expect(page.getByRole("table", { name: "Alert history" })).toContainText("resolved");
  await expect(page.getByText("Nothing is firing")).toBeVisible();

  // The workers charts mark where it fired and resolved, beside the version that relieved it.
  await page.goto("/workers?range=15m");
  const marks = page.getByTestId("policy-marks");
  await expect(marks).toContainText(`alert preemptions firing (${worker})`);
  await expect(marks).toContainText(`alert preemptions resolved (${worker})`);
  await expect(marks).toContainText(`autoscaling v${version} published`);
});
