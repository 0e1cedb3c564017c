import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { freePort } from "../lib/free-port";
import { postEvents, uniq } from "./fixtures/telemetry";

// Alerts into a real Alertmanager (Debian's prometheus-alertmanager, started here): an operator adds it as a receiver
// on the Sources page, switches the preemption rule on for one cluster on the Alerts page and publishes it; a worker
// of that cluster preempting 12 requests a minute fires within seconds, reads back from Alertmanager's API with the
// cluster and worker labels and a link to the worker's page, and resolves once the preemptions have stopped for the
// rule's window.

const BIN = "prometheus-alertmanager";
const present = spawnSync(BIN, ["--version"], { encoding: "utf8" }).status === 0;
let am: ChildProcess | null = null;
let dir = "";

test.afterAll(() => {
  am?.kill("SIGTERM");
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

type AmAlert = { labels: Record<string, string>; annotations: Record<string, string>; status: { state: string } };

/** Worker stats of `worker` every 5 s over [from, to) with the preemption counter from `start`, `step` more each time. */
function stats(cluster: string, worker: string, from: number, to: number, start: number, step: number): object[] {
  const out: object[] = [];
  let n = start;
  for (let t = from; t < to; t += 5_000) {
    n += step;
    out.push({
      id: `${worker}-s-${t}`,
      kind: "worker.stats",
      ts: t,
      cluster,
      worker_id: worker,
      kv_active_blocks: 500,
      kv_total_blocks: 1000,
      requests_running: 4,
      requests_waiting: 1,
      prefix_query_tokens: String(t),
      prefix_hit_tokens: "0",
      preemptions: n,
    });
  }
  return out;
}

test("the preemption rule pages through Alertmanager with the cluster and worker labels, and resolves", async ({
  page,
}) => {
  test.skip(!present && process.env.CI !== "true", `${BIN} is not installed`);
  test.setTimeout(240_000);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-e2e-am-"));
  fs.writeFileSync(path.join(dir, "am.yml"), 'route:\n  receiver: "null"\nreceivers:\n  - name: "null"\n');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  am = spawn(
    BIN,
    [
      `--config.file=${dir}/am.yml`,
      `--storage.path=${dir}/data`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--cluster.listen-address=",
    ],
    { stdio: "ignore" },
  );
  await expect
    .poll(
      () =>
        fetch(`${url}/-/ready`).then(
          (r) => r.ok,
          () => false,
        ),
      { timeout: 20_000 },
    )
    .toBe(true);

  const cluster = uniq("pressure");
  const now = Date.now();
  await postEvents(page.request, [
    {
      id: `${cluster}-up`,
      kind: "worker.up",
      ts: now - 120_000,
      cluster,
      worker_id: "w1",
      role: "aggregated",
      model: "m",
      kv_total_blocks: 1000,
      block_size: 16,
    },
    ...stats(cluster, "w1", now - 90_000, now, 0, 1),
  ]);

  // The receiver, on the Sources page.
  await page.goto("/sources");
  await page.getByRole("button", { name: "Add alert receiver" }).click();
  const form = page.getByRole("form", { name: "Alert receiver" });
  await form.getByLabel("Name").fill(`${cluster} AM`);
  await form.getByLabel("URL").fill(url);
  await form.getByRole("button", { name: "Save receiver" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Saved receiver/ })).toBeVisible();

  // The rule, on the Alerts page: on, this cluster only, held 5 s.
  await page.goto("/alerts?range=1h");
  const rules = page.getByRole("form", { name: "Alert rules" });
  await rules.getByLabel("preemptions on").check();
  await rules.getByLabel("preemptions cluster").fill(cluster);
  await rules.getByLabel("preemptions for seconds").fill("5");
  await rules.getByLabel("Comment").fill("page on preemptions");
  await rules.getByRole("button", { name: "Review changes" }).click();
  const changes = rules.getByRole("table", { name: "Changes to publish" });
  await expect(changes.getByRole("row", { name: /preemptions: enabled/ })).toContainText("true");
  await expect(changes.getByRole("row", { name: /preemptions: scope\.cluster/ })).toContainText(cluster);
  await rules.getByRole("button", { name: /^Publish rules/ }).click();
  await expect(page.getByRole("status").filter({ hasText: /Published alert rules version \d+/ })).toBeVisible();

  // Keep the worker preempting while the rule holds, then read the page back from Alertmanager.
  let t = Date.now();
  let n = 18;
  const firing = async () => {
    const res = await fetch(`${url}/api/v2/alerts?filter=${encodeURIComponent(`cluster="${cluster}"`)}`);
    return ((await res.json()) as AmAlert[]).filter((a) => a.status.state === "active");
  };
  await expect
    .poll(
      async () => {
        const next = Date.now();
        await postEvents(page.request, stats(cluster, "w1", t, next, n, 1));
        n += Math.floor((next - t) / 5_000);
        t = next;
        return (await firing()).length;
      },
      { timeout: 60_000, intervals: [2_000] },
    )
    .toBe(1);
  const [alert] = await firing();
  expect(alert!.labels).toMatchObject({ alertname: "preemptions", cluster, worker: "w1", severity: "critical" });
  expect(alert!.annotations.link).toMatch(new RegExp(`/workers/${cluster}%2Fw1\\?range=15m$`));
  await expect(page.getByRole("table", { name: "Firing alerts" })).toContainText(cluster, { timeout: 20_000 });

  // The preemptions stop: once the rule's window holds no increase, it resolves in Alertmanager too.
  await expect
    .poll(
      async () => {
        const next = Date.now();
        await postEvents(page.request, stats(cluster, "w1", t, next, n, 0));
        t = next;
        return (await firing()).length;
      },
      { timeout: 150_000, intervals: [5_000] },
    )
    .toBe(0);
  await expect(page.getByRole("table", { name: "Alert history" })).toContainText("resolved", { timeout: 20_000 });

  // The workers charts mark where it fired and resolved; the rules' versions can be rolled back (audited).
  await page.goto("/workers?range=15m");
  await expect(page.getByTestId("policy-marks")).toContainText(`alert preemptions firing (${cluster}/w1)`);
  await expect(page.getByTestId("policy-marks")).toContainText(`alert preemptions resolved (${cluster}/w1)`);
});
