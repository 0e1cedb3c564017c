import { expect, test, type APIRequestContext } from "@playwright/test";
import { apiQuery, postEvents, uniq } from "./fixtures/telemetry";

const cand = (worker_id: string, prefill_blocks: number, overlap_blocks: number, decode_blocks: number) => ({
  worker_id,
  prefill_blocks,
  overlap_blocks,
  decode_blocks,
  cost: Math.max(prefill_blocks - overlap_blocks, 0) + decode_blocks,
});

function decision(
  run: string,
  n: number,
  ts: number,
  chosen: string,
  candidates: ReturnType<typeof cand>[],
  prompt_blocks = 10,
) {
  return {
    id: `${run}-d${n}`,
    kind: "route.decision",
    ts,
    request_id: `${run}-r${n}`,
    prompt_blocks,
    chosen_worker_id: chosen,
    candidates,
    overlap_credit: 1,
    prefill_load_scale: 1,
    temperature: 0,
  };
}

function turn(run: string, n: number, ts: number, input_tokens: number, cached_tokens: number) {
  return {
    id: `${run}-q${n}`,
    kind: "request",
    ts,
    request_id: `${run}-r${n}`,
    api: "messages",
    model: "m",
    arrived_at: ts,
    input_tokens,
    cached_tokens,
    output_tokens: 1,
    status: "ok",
    block_size: 16,
  };
}

test("a new decision appears live and expands to its winner, runner-up and why", async ({ page, request }) => {
  await page.goto("/routing?range=15m");
  await expect(page.getByRole("heading", { name: "Routing", level: 1 })).toBeVisible();
  const run = uniq("rt");
  const [w1, w2, w3] = [1, 2, 3].map((i) => `${run}-w${i}`);
  // the routing cost rule's worked check: (prefill, overlap, decode) = (10, 2, 10), (10, 5, 5), (10, 8, 9) cost 18, 10, 11 → w2 wins, w3 is runner-up.
  await postEvents(request, [
    decision(run, 1, Date.now() - 1_000, w2!, [cand(w1!, 10, 2, 10), cand(w2!, 10, 5, 5), cand(w3!, 10, 8, 9)]),
  ]);

  const expand = page.getByRole("button", { name: `Candidates of ${run}-r1` });
  await expect(expand).toHaveAttribute("aria-expanded", "false");
  await expand.focus();
  await page.keyboard.press("Enter");
  await expect(expand).toHaveAttribute("aria-expanded", "true");

  const candidates = page.getByRole("table", { name: `Candidates of ${run}-r1` });
  await expect(candidates.getByRole("row")).toHaveCount(4);
  await expect(candidates.getByRole("row", { name: new RegExp(`^${w2} 5 10 5 10 winner$`) })).toBeVisible();
  await expect(candidates.getByRole("row", { name: new RegExp(`^${w3} 8 10 9 11 runner-up$`) })).toBeVisible();
  await expect(candidates.getByRole("row", { name: new RegExp(`^${w1} 2 10 10 18$`) })).toBeVisible();
  await expect(page.getByTestId(`explanation-${run}-r1`)).toContainText(
    "won on load: 4 fewer decode blocks outweighed 3 fewer cached blocks",
  );
  await expect(page.getByTestId(`explanation-${run}-r1`)).toContainText(`runner-up ${w3}`);

  // The expansion survives the live refresh.
  await expect(page.getByRole("button", { name: `Candidates of ${run}-r1` })).toHaveAttribute("aria-expanded", "true");
  await expand.click();
  await expect(candidates).toHaveCount(0);
});

test("routing loss and the recomputed share match the seeded numbers and the API, and the list pages", async ({
  page,
  request,
}) => {
  const run = uniq("rl");
  // A quiet window two days back that no other spec writes to.
  const base = Date.now() - 2 * 86_400_000 - Math.floor(Math.random() * 3_600_000);
  const from = base - 60_000;
  const to = base + 10 * 60_000;
  const [a, b] = [`${run}-a`, `${run}-b`];
  const events: object[] = [];
  // d1: a chosen with 4 cached blocks while b held 9 → 5 of 10 blocks lost. d2: b chosen with the most → none lost.
  events.push(decision(run, 1, base, a, [cand(a, 10, 4, 1), cand(b, 20, 9, 12)]), turn(run, 1, base, 1000, 800));
  events.push(
    decision(run, 2, base + 1_000, b, [cand(a, 20, 0, 5), cand(b, 20, 8, 5)]),
    turn(run, 2, base + 1_000, 1000, 200),
  );
  // 28 more decisions with nothing lost, so the list needs a second page (25 per page).
  for (let n = 3; n <= 30; n++) {
    events.push(
      decision(run, n, base + n * 1_000, a, [cand(a, 10, 10, 1), cand(b, 10, 0, 1)]),
      turn(run, n, base + n * 1_000, 1000, 1000),
    );
  }
  await postEvents(request, events);

  await page.goto(`/routing?from=${from}&to=${to}`);
  // Lost 5 × 16 tokens of 30 × 10 × 16 prompt tokens; recomputed 200 + 800 of 30,000 input tokens.
  await expect(page.getByTestId("kpi-decisions")).toHaveText("30");
  await expect(page.getByTestId("kpi-routing-loss")).toHaveText("1.7%");
  await expect(page.getByText("80 of 4,800 prompt tokens")).toBeVisible();
  await expect(page.getByTestId("kpi-recomputed")).toHaveText("3.3%");

  const api = await apiQuery<{
    loss: { total: { share: number; lost: number; prompt: number; unit: string } };
    recomputed: { share: number };
  }>(request, "routing.series", { range: { from, to } });
  expect(api.loss.total).toEqual({ share: 80 / 4800, lost: 80, prompt: 4800, unit: "tokens" });
  expect(api.recomputed.share).toBeCloseTo(1000 / 30000, 12);
  await expect(page.getByTestId("kpi-routing-loss")).toHaveText(`${(api.loss.total.share * 100).toFixed(1)}%`);

  const decisions = page.getByRole("table", { name: "Routing decisions" });
  await expect(decisions.getByRole("button", { name: /^Candidates of / })).toHaveCount(25);
  await expect(decisions.getByRole("button", { name: `Candidates of ${run}-r30` })).toBeVisible();
  await page.getByRole("button", { name: "Older →" }).click();
  await expect(decisions.getByRole("button", { name: /^Candidates of / })).toHaveCount(5);
  await expect(decisions.getByRole("button", { name: `Candidates of ${run}-r1` })).toBeVisible();
  await expect(page.getByRole("button", { name: "Older →" })).toBeDisabled();

  await page.getByRole("checkbox", { name: "Only decisions that lost prefix to routing" }).check();
  await expect(decisions.getByRole("button", { name: /^Candidates of / })).toHaveCount(1);
  await expect(
    decisions.getByRole("row", { name: new RegExp(`${run}-r1 ${a} 4 / 9 80 tokens \\(5 blocks\\)`) }),
  ).toBeVisible();
});
