import { readFile } from "node:fs/promises";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { postEvents, tryApiQuery, uniq } from "./fixtures/telemetry";

const TURNS = 500;
const TOOLS_PER_TURN = 2;
const BATCH = 1_000;
const BS = 16;
/** How long the spin loop below takes in this page on an idle 2-core machine (ms; the fastest of three runs: 11-13). */
const IDLE_SPIN_MS = 12;

type TraceTurn = { requestId: string; causes: Record<string, number> | null };
type Trace = { totals: { turns: number; toolCalls: number }; lanes: { turns: TraceTurn[] }[] };

/**
 * One session of 500 turns (every fifth on one of ten subagents) and 1,000 tool calls, each turn routed and
 * extending the previous prompt by a few blocks (the scripts/bench-trace.ts shape), ending a few minutes ago.
 */
function largeSession(sid: string, p: string): object[] {
  const t0 = Date.now() - TURNS * 4_000 - 120_000;
  const base = 1_000_000_000 + Math.floor(Math.random() * 1_000_000) * 10_000;
  const events: object[] = [];
  let blocks: string[] = [];
  for (let i = 0; i < TURNS; i++) {
    const at = t0 + i * 4_000;
    const traj = i % 5 === 4 ? `sub-${Math.floor(i / 50)}` : "main";
    for (let b = 0; b < 4; b++) blocks.push(String(base + i * 4 + b));
    if (blocks.length > 200) blocks = blocks.slice(-200);
    const rid = `${p}-req-${String(i).padStart(3, "0")}`;
    const w = `${p}-w${i % 4}`;
    events.push(
      {
        id: `${p}-rd-${i}`,
        kind: "route.decision",
        ts: at,
        request_id: rid,
        session_id: sid,
        trajectory_id: traj,
        prompt_blocks: blocks.length,
        chosen_worker_id: w,
        candidates: [0, 1, 2, 3].map((k) => ({
          worker_id: `${p}-w${k}`,
          overlap_blocks: k === i % 4 ? blocks.length - 4 : 0,
          prefill_blocks: 4,
          decode_blocks: k * 10,
          cost: 4 + k,
        })),
        overlap_credit: 1,
        prefill_load_scale: 1,
        temperature: 0,
      },
      {
        id: `${p}-rq-${i}`,
        kind: "request",
        ts: at + 2_000,
        request_id: rid,
        session_id: sid,
        trajectory_id: traj,
        parent_trajectory_id: traj === "main" ? undefined : "main",
        harness: "claude_code",
        session_type: "coding",
        api: "messages",
        model: "m",
        worker_id: w,
        arrived_at: at,
        first_token_at: at + 300,
        finished_at: at + 2_000,
        input_tokens: blocks.length * BS + 10,
        cached_tokens: Math.max(0, blocks.length - 4) * BS,
        output_tokens: 200,
        reasoning_tokens: 40,
        status: "ok",
        block_size: BS,
        sequence_hashes: blocks,
        local_hashes: blocks,
        policy_versions: { retention: 1, routing: 2 },
      },
    );
    for (let k = 0; k < TOOLS_PER_TURN; k++) {
      const call = `${p}-call-${i}-${k}`;
      events.push({
        id: `${p}-tl-${i}-${k}`,
        kind: "tool",
        ts: at + 3_500,
        session_id: sid,
        trajectory_id: traj,
        request_id: rid,
        tool_call_id: call,
        name: k ? "Read" : "Bash",
        started_at: at + 1_800 + k * 100,
        ended_at: at + 3_500,
        status: "succeeded",
        output_tokens: 500,
      });
    }
    events.push({
      id: `${p}-rs-${i}`,
      kind: "reasoning",
      ts: at + 2_000,
      request_id: rid,
      tool_call_id: `${p}-call-${i}-0`,
      tokens: 20,
      started_at: at + 300,
      ended_at: at + 450,
    });
  }
  return events;
}

function trace(request: APIRequestContext, id: string): Promise<Trace | null> {
  return tryApiQuery<Trace>(request, "sessions.byId", { id });
}

/** Turns of the session the attribution job has given causes to. */
async function attributedTurns(request: APIRequestContext, id: string): Promise<number> {
  const t = await trace(request, id);
  return t ? t.lanes.flatMap((l) => l.turns).filter((u) => u.causes !== null).length : 0;
}

test.describe.configure({ timeout: 180_000 });

test("a 500-turn, 1,000-tool session: lanes, turns, keyboard selection, JSON and CSV export", async ({
  page,
  request,
}) => {
  const p = uniq("big");
  const sid = `${p}-session`;
  const events = largeSession(sid, p);
  expect(events.length).toBeGreaterThan(2 * BATCH);
  for (let i = 0; i < events.length; i += BATCH) await postEvents(request, events.slice(i, i + BATCH));

  await expect.poll(() => attributedTurns(request, sid), { timeout: 90_000, intervals: [500, 1_000] }).toBe(TURNS);
  const t = (await trace(request, sid))!;
  expect(t.totals).toMatchObject({ turns: TURNS, toolCalls: TURNS * TOOLS_PER_TURN });

  // The trace page: lanes and every turn.
  const started = Date.now();
  await page.goto(`/sessions/${encodeURIComponent(sid)}`);
  const turns = page.getByRole("table", { name: "Turns" });
  const body = turns.getByRole("rowgroup").nth(1);
  await expect(body.getByRole("row", { name: new RegExp(`^${p}-req-000\\b`) })).toBeVisible({ timeout: 30_000 });
  console.log(`session-large: /sessions/<id> showed the turns table with ${TURNS} turns in ${Date.now() - started} ms`);
  await expect(page.getByRole("heading", { name: `Session ${sid}`, level: 1 })).toBeVisible();
  await expect(page.getByTestId("session-lanes")).toBeVisible();
  // The table is windowed: it says it has every turn, and holds only the rows in view (plus a margin).
  await expect(turns).toHaveAttribute("aria-rowcount", String(TURNS + 1));
  expect(await body.getByRole("row").count()).toBeLessThan(60);
  await expect(body.getByRole("row").filter({ hasText: "pending" })).toHaveCount(0);

  // Selecting turns keeps the main thread responsive: no task of 100 ms or more while turns are selected by click and key.
  // The budget is for an idle machine and grows with how much slower this page's thread runs a fixed loop right now
  // (the slower of two runs, before and after): under a loaded CI machine the same rendering takes longer. One task of
  // the 15 selections may run over it, up to three times (CI once measured 232 ms against 106 between two quick
  // probes: the OS had the thread off the core for a moment); a slow selection shows in every one of them.
  const spin = () =>
    page.evaluate(() => {
      // The fastest of three runs: the first ones also compile the loop.
      let best = Infinity;
      for (let k = 0; k < 3; k++) {
        const t0 = performance.now();
        let x = 0;
        for (let i = 0; i < 2_000_000; i++) x = (x * 31 + i) | 0;
        (window as unknown as { sink: number }).sink = x;
        best = Math.min(best, performance.now() - t0);
      }
      return best;
    });
  const spinBefore = await spin();
  await page.evaluate(() => {
    const w = window as unknown as { longTasks: number[] };
    w.longTasks = [];
    new PerformanceObserver((list) => w.longTasks.push(...list.getEntries().map((e) => e.duration))).observe({
      type: "longtask",
    });
  });
  const details = page.getByTestId("turn-details");
  for (let i = 0; i < 10; i++) {
    const id = `${p}-req-${String(i).padStart(3, "0")}`;
    await body.getByRole("row", { name: new RegExp(`^${id}\\b`) }).click();
    await expect(details.getByRole("heading", { name: `Turn ${id}` })).toBeVisible();
    await expect(details.getByTestId("decision-why")).toBeVisible();
  }

  // Then by keyboard to the far end of the list and back: End, ArrowUp twice, Enter, ArrowDown twice.
  await body.getByRole("row", { name: new RegExp(`^${p}-req-009\\b`) }).focus();
  await page.keyboard.press("End");
  await expect(details.getByRole("heading", { name: `Turn ${p}-req-499` })).toBeVisible();
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowUp");
  await expect(details.getByRole("heading", { name: `Turn ${p}-req-497` })).toBeVisible();
  await expect(body.getByRole("row", { name: new RegExp(`^${p}-req-497\\b`) })).toBeFocused();
  await page.keyboard.press("Enter");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await expect(details.getByRole("heading", { name: `Turn ${p}-req-499` })).toBeVisible();
  await expect(body.getByRole("row", { name: new RegExp(`^${p}-req-499\\b`) })).toBeFocused();
  await expect(body.getByRole("row", { name: new RegExp(`^${p}-req-499\\b`) })).toHaveAttribute(
    "aria-selected",
    "true",
  );
  await expect(body.getByRole("row", { name: new RegExp(`^${p}-req-000\\b`) })).toHaveCount(0);
  const longTasks = await page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks);
  const slowdown = Math.max(1, Math.max(spinBefore, await spin()) / IDLE_SPIN_MS);
  const [longest = 0, second = 0] = [...longTasks].sort((a, b) => b - a);
  console.log(
    `session-large: selecting 15 turns (10 clicks, 5 keys): ${longTasks.length} long tasks, longest ${Math.round(longest)} ms, next ${Math.round(second)} ms (budget ${Math.round(100 * slowdown)} ms: the thread runs ${slowdown.toFixed(1)}x slower than idle)`,
  );
  expect(second).toBeLessThan(100 * slowdown);
  expect(longest).toBeLessThan(300 * slowdown);
  await expect(details.getByTestId("turn-causes")).not.toHaveText(/not attributed/);
  await expect(
    details.getByRole("table", { name: "Routing candidates" }).getByRole("cell", { name: "chosen" }),
  ).toBeVisible();

  // Export JSON: the download is the whole session.
  const [json] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export JSON" }).click(),
  ]);
  expect(json.suggestedFilename()).toBe(`session-${sid}.json`);
  const doc = JSON.parse(await readFile((await json.path())!, "utf8")) as {
    session: { id: string };
    trajectories: { turns: { request_id: string }[]; tools: unknown[] }[];
  };
  expect(doc.session.id).toBe(sid);
  expect(doc.trajectories.flatMap((l) => l.turns)).toHaveLength(TURNS);
  expect(doc.trajectories.flatMap((l) => l.tools)).toHaveLength(TURNS * TOOLS_PER_TURN);

  // /sessions: filter to this session, Export CSV: header and this session's row.
  await page.goto("/sessions?range=1h");
  await page.getByRole("searchbox", { name: "Session id" }).fill(sid);
  await expect(page.getByRole("table", { name: "Sessions" }).getByRole("link", { name: sid })).toBeVisible();
  const [csv] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export CSV" }).click(),
  ]);
  expect(csv.suggestedFilename()).toBe("sessions.csv");
  const lines = (await readFile((await csv.path())!, "utf8")).trimEnd().split("\n");
  const head = lines[0]!.split(",");
  expect(head.slice(0, 6)).toEqual(["session_id", "harness", "session_type", "agents", "subagents", "turns"]);
  expect(lines).toHaveLength(2);
  const cells = lines[1]!.split(",");
  expect(cells[head.indexOf("session_id")]).toBe(sid);
  expect(cells[head.indexOf("turns")]).toBe(String(TURNS));
  expect(cells[head.indexOf("tool_calls")]).toBe(String(TURNS * TOOLS_PER_TURN));
  expect(cells[head.indexOf("subagents")]).toBe("10");
});
