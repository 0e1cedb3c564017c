import type { ChildProcess } from "node:child_process";
import { expect, test, type Page } from "@playwright/test";
import { adminApi, adminMutation } from "./fixtures/auth";
import { startSimProcess } from "../test/sim-process";
import { apiQuery, INGEST_TOKEN, uniq } from "./fixtures/telemetry";
import { formatMs } from "../components/format";

// Storage tiers with a live simulated cluster (the `offload` scenario in its own process): the operator turns on
// offload to host in the retention form, then prefetch on resume (retention rule + frontend), and sees on the worker
// and session pages recomputes turn into host hits and then into device hits, with the TTFT gain on the overview.

const CONTROL_TOKEN = "e2e-sim-control-token-tiers-0123456789";
const SPEED = 24;
/** How far ahead of the wall clock a retry's simulated clock starts, per retry (the test's timeout at SPEED, and more). */
const RETRY_CLOCK_OFFSET_MS = 5 * 3_600_000;
let sim: ChildProcess | null = null;

test.describe.configure({ timeout: 600_000 });
test.afterEach(() => {
  sim?.kill("SIGTERM");
  sim = null;
});

type Latest = { version: number; document: Record<string, unknown> } | null;
type TurnView = {
  requestId: string;
  arrivedAt: number;
  cachedTokens: number;
  inputTokens: number;
  cachedFrom: { host: number | null; prefetched: number | null };
};

const baseline = {
  retention: {
    rules: [
      { name: "keep-system-prompt", match: { segment: "system_prompt" }, priority: 90, ttl_seconds: 3600 },
      { name: "agent-context", match: { segment: "any" }, priority: 50 },
    ],
  },
  frontend: { prefetch: { enabled: false, lead_ms: 300 } },
};

/** The simulator's clock (Unix ms): at SPEED × real time it runs ahead of the wall clock. */
async function simNow(url: string): Promise<number> {
  const res = await fetch(`${url}/control/status`, { headers: { Authorization: `Bearer ${CONTROL_TOKEN}` } });
  return ((await res.json()) as { sim_time: number }).sim_time;
}

/** Wait until the simulator has run `seconds` simulated seconds past `from`; returns its clock then. */
async function simulate(url: string, from: number, seconds: number): Promise<number> {
  let now = from;
  await expect
    .poll(async () => (now = await simNow(url)) - from >= seconds * 1000, { timeout: 120_000, intervals: [1_000] })
    .toBe(true);
  return now;
}

async function reviewAndPublish(page: Page, form: ReturnType<Page["getByRole"]>, comment: string): Promise<number> {
  await form.getByRole("button", { name: "Review changes" }).click();
  await form.getByLabel("Comment").fill(comment);
  const publish = form.getByRole("button", { name: /^Publish v\d+$/ });
  const version = Number((await publish.textContent())!.replace(/\D+/g, ""));
  await publish.click();
  await expect(form.getByText(`Published v${version}.`)).toBeVisible();
  return version;
}

type Found = TurnView & { sessionId: string; index: number; count: number };

/** Turns of the range's sessions that arrived in [from, to), with their place in their session's turns table. */
async function turnsIn(page: Page, from: number, to: number): Promise<Found[]> {
  const list = await apiQuery<{ items: { sessionId: string }[] }>(page.request, "sessions.list", {
    range: { from, to },
    limit: 20,
  });
  const out: Found[] = [];
  for (const s of list.items) {
    const trace = await apiQuery<{ lanes: { turns: TurnView[] }[] }>(page.request, "sessions.byId", {
      id: s.sessionId,
    });
    const all = trace.lanes.flatMap((l) => l.turns).sort((a, b) => a.arrivedAt - b.arrivedAt);
    all.forEach((t, index) => {
      if (t.arrivedAt >= from && t.arrivedAt < to) out.push({ ...t, sessionId: s.sessionId, index, count: all.length });
    });
  }
  return out;
}

test("offload, then prefetch, turned on in the forms: recomputes become host hits, then device hits", async ({
  page,
  baseURL,
}, testInfo) => {
  const api = await adminApi(baseURL!);
  for (const kind of ["retention", "frontend"] as const) {
    const res = await page.request.get(
      `/api/trpc/policies.latest?input=${encodeURIComponent(JSON.stringify({ json: { kind } }))}`,
    );
    expect(res.status()).toBe(200);
    const latest = ((await res.json()) as { result: { data: { json: Latest } } }).result.data.json;
    await adminMutation(api, "policies.publish", {
      kind,
      document: baseline[kind],
      baseVersion: latest?.version ?? null,
      comment: "e2e: the offload scenario's own policies (no offload, no prefetch)",
    });
  }
  // A retry's cluster starts its clock past everything an earlier attempt simulated (at SPEED, ten minutes of an attempt
  // are four simulated hours): the phases below are time ranges, and an earlier attempt's offload traffic in them made
  // the retry's "off" phase look like offload.
  const start = Date.now() + testInfo.retry * RETRY_CLOCK_OFFSET_MS;
  const started = startSimProcess(
    [
      "--scenario",
      "offload",
      "--seed",
      "5",
      "--start",
      String(start),
      "--speed",
      String(SPEED),
      "--dashboard",
      baseURL!,
      "--token",
      INGEST_TOKEN,
    ],
    CONTROL_TOKEN,
  );
  sim = started.child;
  const url = await started.controlUrl;
  const target = { id: uniq("tiers-sim").toLowerCase(), name: "E2E offload cluster" };
  await adminMutation(api, "policies.targets.upsert", {
    target: {
      ...target,
      adapter: "sim",
      config: { url, token: CONTROL_TOKEN },
      kinds: ["retention", "frontend"],
      enabled: true,
    },
  });
  await api.dispose();
  const t0 = await simNow(url);

  // Phase 1, offload off: agents' context is recomputed after every long tool wait.
  const tA = await simulate(url, t0, 480);

  // An offload to a tier the cluster lacks is refused by the cluster, with the field named.
  await page.goto("/policies?kind=retention");
  const form = page.getByRole("tabpanel", { name: /^Retention/ });
  const rule = form.getByRole("listitem", { name: "Rule 2", exact: true });
  await expect(rule.getByLabel("Name")).toHaveValue("agent-context");
  await rule.getByLabel("Offload to").selectOption("shared");
  await reviewAndPublish(page, form, "e2e: offload to shared storage (this cluster has none)");
  const rollout = page.getByTestId(`rollout-${target.id}`);
  await expect(rollout).toContainText("rejected", { timeout: 30_000 });
  await expect(rollout).toContainText("this cluster has no shared tier");

  // Phase 2: offload to host.
  await rule.getByLabel("Offload to").selectOption("host");
  const v2 = await reviewAndPublish(page, form, "e2e: offload agent context to host memory");
  await expect(rollout).toContainText("in sync", { timeout: 30_000 });
  await expect(rollout).toContainText(`v${v2}`);
  const tB0 = await simNow(url);
  const tB = await simulate(url, tB0, 480);

  // Phase 3: prefetch on resume (the rule and the frontend's lead time).
  await rule.getByRole("checkbox", { name: "Prefetch on resume" }).check();
  await reviewAndPublish(page, form, "e2e: prefetch agent context before tool results");
  await page.goto("/policies?kind=frontend");
  const fe = page.getByRole("tabpanel", { name: /^Frontend/ });
  const prefetch = fe.getByRole("group", { name: "KV prefetch" });
  await prefetch.getByRole("checkbox", { name: "Prefetch before tool results" }).check();
  await prefetch.getByLabel("Lead time (ms)").fill("2000");
  await reviewAndPublish(page, fe, "e2e: start prefetching 2 s before tools are predicted to end");
  await expect(page.getByTestId(`rollout-${target.id}`)).toContainText("in sync", { timeout: 30_000 });
  const tC0 = await simNow(url);
  const tC = await simulate(url, tC0, 480);

  // Stop the cluster (it delivers what it has before it exits), so the figures below are final.
  const exited = new Promise((resolve) => sim!.once("exit", resolve));
  sim!.kill("SIGTERM");
  await exited;
  sim = null;
  const phases = [
    { name: "off", from: t0 + 180_000, to: tA },
    { name: "offload", from: tB0 + 180_000, to: tB },
    { name: "prefetch", from: tC0 + 180_000, to: tC },
  ];
  type Summary = { requests: number; ttftP50Ms: number | null; prefixHitRate: number | null };
  const summaries: Summary[] = [];
  for (const p of phases) {
    await expect
      .poll(async () => (await apiQuery<Summary>(page.request, "overview.summary", p)).requests, { timeout: 60_000 })
      .toBeGreaterThan(20);
    summaries.push(await apiQuery<Summary>(page.request, "overview.summary", p));
  }
  const [off, offload, pre] = summaries as [Summary, Summary, Summary];
  console.log(
    phases
      .map(
        (p, i) =>
          `${p.name}: TTFT p50 ${summaries[i]!.ttftP50Ms} ms, hit rate ${summaries[i]!.prefixHitRate?.toFixed(3)}`,
      )
      .join("; "),
  );
  expect(offload.prefixHitRate!).toBeGreaterThan(off.prefixHitRate! + 0.2);
  expect(pre.ttftP50Ms!).toBeLessThan(offload.ttftP50Ms!);
  expect(pre.ttftP50Ms!).toBeLessThan(off.ttftP50Ms!);

  // The worker page: blocks offloaded and onboarded, host hits with offload; prefetched tokens with prefetch.
  const worker = "w1";
  const workerPage = async (p: (typeof phases)[number]) => {
    await page.goto(`/workers/${worker}?from=${p.from}&to=${p.to}`);
    await expect(page.getByRole("heading", { name: `Worker ${worker}`, level: 1 })).toBeVisible();
  };
  await workerPage(phases[1]!);
  const summary = page.getByTestId("worker-tiers-summary");
  // The page's tier queries answer after its heading; on a loaded machine (three e2e projects at once) that took over 10 s.
  await expect(summary).toContainText("Host memory", { timeout: 30_000 });
  await expect(summary).toContainText(/[1-9][\d,]* blocks offloaded, [1-9][\d,]* onboarded/);
  await expect(summary).toContainText(/host \d+(\.\d)?%/);
  await page.screenshot({ path: testInfo.outputPath("worker-offload.png"), fullPage: true });
  await workerPage(phases[2]!);
  await expect(summary).toContainText(/[1-9][\d,]* tokens prefetched/);
  await page.screenshot({ path: testInfo.outputPath("worker-prefetch.png"), fullPage: true });

  // The session page: a turn after a long tool wait onboarded from host, later one served by a prefetch.
  const pick = async (p: (typeof phases)[number], ok: (t: TurnView) => boolean) => {
    const found = (await turnsIn(page, p.from, p.to)).sort((a, b) => a.index - b.index).find(ok);
    expect(found, `a ${p.name} turn`).toBeDefined();
    return found!;
  };
  // The turns table is windowed: walk to the turn with the keyboard (Home, then ArrowDown) and open it.
  const showTurn = async (t: Found) => {
    await page.goto(`/sessions/${encodeURIComponent(t.sessionId)}`);
    const rows = page.getByRole("table", { name: "Turns" }).getByRole("row");
    await rows.nth(1).focus();
    await page.keyboard.press("Home");
    for (let i = 0; i < t.index; i++) await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    const details = page.getByTestId("turn-details");
    await expect(details).toContainText(`Turn ${t.requestId}`);
    return details;
  };
  const recomputed = await pick(phases[0]!, (t) => t.inputTokens - t.cachedTokens > 20_000);
  const d0 = await showTurn(recomputed);
  await expect(d0.getByTestId("turn-onboarded")).toHaveCount(0);
  const hostHit = await pick(phases[1]!, (t) => (t.cachedFrom.host ?? 0) > 10_000);
  const d1 = await showTurn(hostHit);
  await expect(d1.getByTestId("turn-onboarded")).toContainText(/onboarded from host [\d,]+ \(waited \d/);
  await page.screenshot({ path: testInfo.outputPath("trace-host-hit.png"), fullPage: true });
  const prefetched = await pick(phases[2]!, (t) => (t.cachedFrom.prefetched ?? 0) > 10_000);
  const d2 = await showTurn(prefetched);
  await expect(d2.getByTestId("turn-cached-from")).toContainText(/prefetched [\d,]+/);
  await page.screenshot({ path: testInfo.outputPath("trace-prefetched.png"), fullPage: true });

  // The TTFT gain on the overview, phase by phase.
  for (const [i, p] of phases.entries()) {
    await page.goto(`/?from=${p.from}&to=${p.to}`);
    await expect(page.getByTestId("kpi-ttft-p50")).toHaveText(formatMs(summaries[i]!.ttftP50Ms));
    await page.screenshot({ path: testInfo.outputPath(`overview-${p.name}.png`), fullPage: true });
  }
});
