import { expect, test } from "@playwright/test";
import { API_TOKEN, postEvents, uniq } from "./fixtures/telemetry";

/** Two sessions of six turns each on one small worker, in the last quarter hour, each turn extending the one before. */
function traffic(prefix: string, now: number): object[] {
  const worker = `${prefix}-w`;
  const events: object[] = [
    {
      id: `${prefix}-up`,
      kind: "worker.up",
      ts: now - 20 * 60_000,
      worker_id: worker,
      role: "aggregated",
      model: "m",
      kv_total_blocks: 64,
      block_size: 16,
    },
  ];
  for (let s = 0; s < 2; s++) {
    const chain: string[] = ["11", "12", "13"];
    for (let t = 0; t < 6; t++) {
      chain.push(String(1000 * (s + 1) + t), String(1000 * (s + 1) + t + 500));
      const at = now - 14 * 60_000 + (s * 6 + t) * 30_000;
      events.push({
        id: `${prefix}-r${s}-${t}`,
        kind: "request",
        ts: at + 900,
        request_id: `${prefix}-r${s}-${t}`,
        session_id: `${prefix}-s${s}`,
        trajectory_id: `${prefix}-s${s}`,
        api: "chat_completions",
        model: "m",
        worker_id: worker,
        arrived_at: at,
        first_token_at: at + 300,
        finished_at: at + 900,
        input_tokens: chain.length * 16,
        cached_tokens: t === 0 ? 0 : (chain.length - 2) * 16,
        output_tokens: 8,
        status: "ok",
        block_size: 16,
        sequence_hashes: chain.map((_, i) => String(7_000_000 + s * 1000 + i)),
        local_hashes: [...chain],
      });
    }
  }
  return events;
}

test("a retention change previewed on the last hour shows predicted against baseline, and its published version names the prediction", async ({
  page,
}) => {
  await postEvents(page.request, traffic(uniq("preview"), Date.now()));

  // Scripts: the same preview over HTTP with an operate-or-higher token.
  const res = await page.request.post("/api/policies/preview", {
    headers: { Authorization: `Bearer ${API_TOKEN}` },
    data: { kind: "retention", document: { default: { priority: 10 } } },
    timeout: 120_000,
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { baseline: { hit_rate: number }; candidate: { hit_rate: number } };
  expect(body.baseline.hit_rate).toBeGreaterThan(0);
  expect(body.candidate.hit_rate).toBeGreaterThan(0);
  const refused = await page.request.post("/api/policies/preview", {
    headers: { Authorization: `Bearer ${API_TOKEN}` },
    data: { kind: "retention", document: { default: { priority: 500 } } },
  });
  expect(refused.status()).toBe(400);
  expect(((await refused.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe("document.default.priority");

  await page.goto("/policies?kind=retention");
  const form = page.getByRole("tabpanel", { name: /^Retention/ });
  const priority = form.getByRole("group", { name: "Default" }).getByLabel("Priority");
  await priority.fill("12");
  await form.getByRole("button", { name: "Review changes" }).click();
  await expect(form.getByRole("table", { name: "Changes to publish" })).toBeVisible();
  await form.getByLabel("Preview window").selectOption({ label: "Last hour" });
  await form.getByRole("button", { name: "Preview on the last hour" }).click();
  const table = form.getByRole("table", { name: "Predicted against baseline" });
  await expect(table).toBeVisible({ timeout: 60_000 });
  await expect(table.getByRole("row", { name: /Hit rate/ })).toContainText("%");
  await expect(form.getByRole("table", { name: "Recomputed tokens by cause" })).toBeVisible();
  await expect(form.getByText(/Assumptions \(\d+\)/)).toBeVisible();

  // Published as previewed: the version's impact panel names the preview that predicted its content.
  await form.getByLabel("Comment").fill("e2e: default priority 12, as previewed");
  const publish = form.getByRole("button", { name: /^Publish v\d+$/ });
  const version = Number((await publish.textContent())!.replace(/\D+/g, ""));
  await publish.click();
  await expect(page.getByText(`Published v${version}.`)).toBeVisible();
  await page.getByRole("button", { name: `Impact of v${version}` }).click();
  const impact = page.getByTestId("retention-impact");
  await expect(impact).toContainText(`Impact of v${version}`);
  await expect(impact).toContainText(/Predicted by the preview over /);
});
