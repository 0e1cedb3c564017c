import { execFileSync } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { rememberSecret } from "./fixtures/secrets";
import { expect, test } from "@playwright/test";
import { VLLM_NEW } from "../server/sources/prometheus/fixtures";
import { INGEST_TOKEN, postEvents, uniq } from "./fixtures/telemetry";

let server: http.Server;
let metricsUrl: string;
let scrapes = 0;

test.beforeAll(async () => {
  server = http.createServer((_req, res) => {
    scrapes++;
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
    res.end(VLLM_NEW({ queries: 1000 * scrapes, hits: 400 * scrapes, running: 3 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  metricsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
});

test.afterAll(async () => {
  await new Promise((r) => server.close(r));
});

test("an operator adds a Prometheus target, sees it scraped ok with its series count, edits and removes it", async ({
  page,
}) => {
  const id = uniq("vllm")
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, 40);
  await page.goto("/sources");
  await expect(page.getByRole("heading", { name: "Sources", level: 1 })).toBeVisible();
  await expect(page.getByTestId("ingest-url")).toHaveText(/\/api\/ingest$/);

  await page.getByRole("button", { name: "Add Prometheus /metrics" }).click();
  const form = page.getByRole("form", { name: "Add Prometheus /metrics source" });
  await form.getByLabel("Source id").fill(id);
  await form.getByLabel("Source name").fill("vLLM under test");
  await form.getByLabel("Metrics URL").fill("localhost:8000/metrics");
  await form.getByRole("button", { name: "Add source" }).click();
  await expect(form.getByText("must be an http(s) URL")).toBeVisible();

  await form.getByLabel("Metrics URL").fill(metricsUrl);
  await form.getByLabel("Target kind").selectOption("vllm");
  await form.getByLabel("Scrape interval (s)").fill("1");
  await form.getByLabel("Worker id (optional)").fill(`${id}-w`);
  await form.getByRole("button", { name: "Add source" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Saved source ${id}` })).toBeVisible();

  const row = page.getByTestId(`source-row-${id}`);
  await expect(row.getByTestId(`source-state-${id}`)).toHaveText("ok");
  await expect(row.getByTestId(`source-series-${id}`)).toHaveText("9");
  await expect(row).toContainText(metricsUrl);
  await expect(row).toContainText("vllm");

  const api = (await (await page.request.get("/api/sources")).json()) as {
    sources: { id: string; state: string; series: number; missing_metrics: string[] }[];
  };
  expect(api.sources.find((s) => s.id === id)).toMatchObject({ state: "ok", series: 9, missing_metrics: [] });

  await row.getByRole("button", { name: "Edit vLLM under test" }).click();
  const edit = page.getByRole("form", { name: "Edit Prometheus /metrics source" });
  await expect(edit.getByLabel("Source id")).toHaveValue(id);
  await edit.getByLabel("Source name").fill("vLLM renamed");
  await edit.getByLabel("Enabled").uncheck();
  await edit.getByRole("button", { name: "Save source" }).click();
  await expect(row.getByTestId(`source-state-${id}`)).toHaveText("disabled");
  await expect(row).toContainText("vLLM renamed");

  await row.getByRole("button", { name: "Remove vLLM renamed" }).click();
  await row.getByRole("button", { name: "Confirm remove" }).click();
  await expect(page.getByTestId(`source-row-${id}`)).toHaveCount(0);
});

test("a target that answers garbage turns the source to error with the reason", async ({ page }) => {
  const id = uniq("bad")
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, 40);
  await page.goto("/sources");
  await page.getByRole("button", { name: "Add Prometheus /metrics" }).click();
  const form = page.getByRole("form", { name: "Add Prometheus /metrics source" });
  await form.getByLabel("Source id").fill(id);
  await form.getByLabel("Source name").fill("Wrong port");
  // A port nothing listens on (taken, then given back): the scrape's connection is refused.
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  await form.getByLabel("Metrics URL").fill(`http://127.0.0.1:${port}/nothing-here`);
  await form.getByLabel("Scrape interval (s)").fill("1");
  await form.getByRole("button", { name: "Add source" }).click();
  const row = page.getByTestId(`source-row-${id}`);
  await expect(row.getByTestId(`source-state-${id}`)).toHaveText("error");
  await expect(row.getByTestId(`source-error-${id}`)).toContainText("connection refused");
  await row.getByRole("button", { name: "Remove Wrong port" }).click();
  await row.getByRole("button", { name: "Confirm remove" }).click();
  await expect(page.getByTestId(`source-row-${id}`)).toHaveCount(0);
});

test("an operator adds, edits and removes a policy target; its token stays masked", async ({ page }) => {
  const id = uniq("tgt")
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "-")
    .slice(0, 40);
  await page.goto("/sources");
  const section = page.getByRole("region", { name: "Policy targets" });
  await section.getByRole("button", { name: "Add policy target" }).click();
  const form = section.getByRole("form", { name: "Add policy target" });
  await form.getByLabel("Target id").fill(id);
  await form.getByLabel("Target name").fill("Staging cluster");
  await form.getByLabel("Control API URL").fill("http://127.0.0.1:1/control");
  await form.getByRole("button", { name: "Add target" }).click();
  await expect(form.getByText("is required")).toBeVisible();
  rememberSecret("staging-secret-token-0123456789");
  await form.getByLabel("Token").fill("staging-secret-token-0123456789");
  await form.getByRole("button", { name: "Add target" }).click();

  const row = section.getByTestId(`target-row-${id}`);
  await expect(row).toContainText("Staging cluster");
  await expect(row).toContainText("sim");
  await expect(row).toContainText("retention, autoscaling, routing, frontend");
  await expect(section).not.toContainText("staging-secret-token");

  await row.getByRole("button", { name: "Edit Staging cluster" }).click();
  const edit = section.getByRole("form", { name: "Edit policy target" });
  await expect(edit.getByLabel("Token")).toHaveValue("••••");
  await edit.getByLabel("Target name").fill("Staging (routing only)");
  for (const k of ["retention", "autoscaling", "frontend"]) await edit.getByRole("checkbox", { name: k }).uncheck();
  await edit.getByRole("button", { name: "Save target" }).click();
  await expect(row).toContainText("Staging (routing only)");
  await expect(row.getByRole("cell", { name: "routing", exact: true })).toBeVisible();

  await row.getByRole("button", { name: "Remove Staging (routing only)" }).click();
  await row.getByRole("button", { name: "Confirm remove" }).click();
  await expect(section.getByTestId(`target-row-${id}`)).toHaveCount(0);
});

test("the page shows several sources at once: ok, error and implicit, with the policy targets below", async ({
  page,
}) => {
  const mutate = async (path: string, input: unknown) =>
    expect((await page.request.post(`/api/trpc/${path}`, { data: { json: input } })).status()).toBe(200);
  const tag = uniq("s")
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, 30);
  const sources = [
    {
      id: `${tag}-frontend`,
      name: "vLLM decode-0",
      kind: "prometheus",
      config: { url: metricsUrl, kind: "auto", interval_seconds: 1, worker_id: "decode-0" },
    },
    {
      id: `${tag}-down`,
      name: "SGLang prefill-1",
      kind: "prometheus",
      config: { url: "http://127.0.0.1:1/metrics", kind: "sglang", interval_seconds: 1 },
    },
    {
      id: `${tag}-zmq`,
      name: "vLLM decode-0 KV events",
      kind: "zmq-kv",
      config: { endpoint: "tcp://127.0.0.1:1", worker_id: "decode-0" },
      enabled: false,
    },
  ];
  for (const source of sources) await mutate("sources.upsert", { source });
  await mutate("policies.targets.upsert", {
    target: {
      id: `${tag}-planner`,
      name: "Planner config",
      adapter: "planner-file",
      config: { path: `${tag}/planner.json` },
      kinds: ["autoscaling"],
    },
  });

  await page.goto("/sources");
  await expect(page.getByTestId(`source-state-${tag}-frontend`)).toHaveText("ok");
  await expect(page.getByTestId(`source-state-${tag}-down`)).toHaveText("error");
  await expect(page.getByTestId(`source-state-${tag}-zmq`)).toHaveText("disabled");
  await expect(page.getByTestId(`target-row-${tag}-planner`)).toContainText("planner-file");
  await page.screenshot({ path: test.info().outputPath("sources-page.png"), fullPage: true });

  for (const s of sources) await mutate("sources.remove", { id: s.id });
  await mutate("policies.targets.remove", { id: `${tag}-planner` });
  await expect(page.getByTestId(`source-row-${tag}-frontend`)).toHaveCount(0);
});

test("the storage card shows the database size and the oldest data kept per kind", async ({ page, request }) => {
  const run = uniq("store");
  const at = Date.now() - 3_600_000;
  await postEvents(request, [
    {
      id: `${run}-r`,
      kind: "request",
      ts: at,
      request_id: `${run}-r`,
      api: "messages",
      model: "m",
      arrived_at: at,
      input_tokens: 10,
      cached_tokens: 0,
      output_tokens: 1,
      status: "ok",
    },
  ]);
  await page.goto("/sources");
  const card = page.getByTestId("storage-card");
  await expect(card.getByRole("heading", { name: "Storage" })).toBeVisible();
  await expect(card.getByTestId("database-size")).toHaveText(/Database size: [\d.]+ (B|KiB|MiB|GiB)/);
  // The dashboard process's memory beside it: RSS against the budget, and a heap row per thread (main first).
  await expect(card.getByTestId("process-memory")).toHaveText(
    /^Dashboard memory: [\d.]+ MiB resident \(budget 350\.0 MiB\)( over budget)?$/,
  );
  const heaps = card.getByRole("table", { name: "Heap per thread" });
  await expect(heaps.getByRole("row", { name: /^main / })).toBeVisible();
  // SQLite's ingest threads, or PostgreSQL's.
  await expect(heaps.getByRole("row", { name: /^(pg-)?ingest-1 / })).toBeVisible();
  const requests = card.getByRole("row", { name: /^Requests / });
  await expect(requests).toBeVisible();
  await expect(requests.getByRole("cell").nth(1)).toHaveText("30 days");
  await expect(requests.getByRole("cell").first()).not.toHaveText("none");
  await expect(
    card
      .getByRole("row", { name: /Request rollups/ })
      .getByRole("cell")
      .nth(1),
  ).toHaveText("400 days");
});

test("the example curl line on the Sources page posts a sample stamped now, accepted as a new event", async ({
  page,
}) => {
  await page.goto("/sources");
  const example = page.getByLabel("Example ingest request");
  await expect(example).toBeVisible();
  // The example names this dashboard's own address once the page has hydrated (the server renders a placeholder).
  await expect(example).toContainText(`${new URL(page.url()).origin}/api/ingest`);
  const command = (await example.textContent()) ?? "";
  expect(command).toContain("$(date +%s000)");
  expect(command).not.toMatch(/\d{13}/);

  // Run it as a newcomer would paste it (its worker renamed so the sample stays out of other specs' data).
  const worker = uniq("curl-w");
  const before = Date.now();
  const out = execFileSync("bash", ["-c", command.replace('"worker_id":"w1"', `"worker_id":"${worker}"`)], {
    env: { ...process.env, SWITCHYARD_TOKEN: INGEST_TOKEN },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const reply = JSON.parse(out) as { accepted: number; items: { id: string }[] };
  expect(reply.accepted).toBe(1);
  const stamped = Number(/^w1-s-(\d+)$/.exec(reply.items[0]!.id)?.[1]);
  expect(stamped).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
  expect(stamped).toBeLessThanOrEqual(Date.now());
});
