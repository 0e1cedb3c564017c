import { spawn } from "node:child_process";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { runPrefix } from "../server/sim/engine";
import { tryApiQuery } from "./fixtures/telemetry";
import { nodeArgs } from "../server/compiled";
import { docScreenshot } from "./fixtures/doc-screenshot";

type Row = { sessionId: string; diverged: number; turns: number };

/** This run's sessions (their ids start with the simulator run's prefix) with diverged misses, most first. */
async function sessionsWithDiverged(request: APIRequestContext, run: string): Promise<Row[]> {
  const list = await tryApiQuery<{ items: Row[] }>(request, "sessions.list", {
    range: { preset: "1h" },
    search: `${run}-s`,
    sort: "diverged",
    dir: "desc",
    limit: 5,
  });
  return (list?.items ?? []).filter((r) => r.diverged > 0 && r.sessionId.startsWith(`${run}-s`));
}

/**
 * The simulator's seed: a retry takes another. Content hashes follow the seed alone, so a retry with the first
 * attempt's seed sent the same blocks again: they were cached before, and its misses were judged evicted, not diverged
 * (CI: no diverged session in 90 s on the retry).
 */
const seedFor = (retry: number) => 1 + retry;

/** Run the simulator into the dashboard; its sessions are named after the run's prefix (seed and start). */
function runSimulator(baseURL: string, seed: number, start: number): Promise<number> {
  const args = [
    ...nodeArgs("sim"),
    "--scenario",
    "preamble",
    "--fast",
    "--duration",
    "120",
    "--seed",
    String(seed),
    "--start",
    String(start),
    "--dashboard",
    baseURL,
    "--token",
    process.env.SWITCHYARD_E2E_TOKEN!,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

test.describe.configure({ timeout: 300_000 });

test("preamble: diverged misses in a trace, the unstable-prefix finding, and a turn's routing decision", async ({
  page,
  request,
  baseURL,
}, testInfo) => {
  // Only this run's sessions: others on the dashboard (an imported trace) can have diverged turns and no decisions.
  const start = Date.now() - 180_000;
  const seed = seedFor(testInfo.retry);
  const run = runPrefix(seed, start);
  const sent = Date.now();
  expect(await runSimulator(baseURL!, seed, start)).toBe(0);
  console.log(`sessions: the simulator posted its two minutes in ${Date.now() - sent} ms`);
  await expect
    .poll(async () => (await sessionsWithDiverged(request, run)).length, { timeout: 90_000, intervals: [1_000] })
    .toBeGreaterThan(0);
  const [target] = await sessionsWithDiverged(request, run);

  // The finding needs the share of diverged misses in the range, not just one: on PostgreSQL attribution may still be
  // judging the rest of the run when the first diverged session shows, so wait for the finding itself (each read timed),
  // then open the page once.
  let slowest = 0;
  await expect
    .poll(
      async () => {
        const t = Date.now();
        const f = await tryApiQuery<{ unstablePrefix: object | null }>(request, "sessions.findings", {
          range: { preset: "1h" },
        });
        slowest = Math.max(slowest, Date.now() - t);
        return f?.unstablePrefix != null;
      },
      { timeout: 120_000, intervals: [2_000] },
    )
    .toBe(true);
  console.log(`sessions: the unstable-prefix finding is there; its slowest read took ${slowest} ms`);
  await page.goto("/routing?range=1h");
  // The API answered; the page's own reads of the hour on PostgreSQL, beside two other dashboards on CI's 2 cores,
  // once took longer than the 20 s default (the finding was there). What the page shows is checked, not how fast.
  await expect(page.getByTestId("finding-unstable-prefix")).toContainText("strip_anthropic_preamble", {
    timeout: 60_000,
  });

  await page.goto("/sessions?range=1h");
  await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
  await page.getByRole("searchbox", { name: "Session id" }).fill(target!.sessionId);
  await page
    .getByRole("table", { name: "Sessions" })
    .getByRole("link", { name: target!.sessionId, exact: true })
    .click();

  await expect(page.getByRole("heading", { name: `Session ${target!.sessionId}`, level: 1 })).toBeVisible();
  await expect(page.getByTestId("session-lanes")).toBeVisible();
  await docScreenshot(page, testInfo, "session-trace");
  const turns = page.getByRole("table", { name: "Turns" });
  const divergedTurn = turns
    .getByRole("row")
    .filter({ hasText: /diverged [\d,]+/ })
    .first();
  await expect(divergedTurn).toBeVisible();
  await divergedTurn.focus();
  await page.keyboard.press("Enter");
  const details = page.getByTestId("turn-details");
  await expect(details.getByTestId("turn-causes")).toContainText("diverged");
  await expect(details.getByRole("table", { name: "Routing candidates" })).toBeVisible();
  await expect(
    details.getByRole("table", { name: "Routing candidates" }).getByRole("cell", { name: "chosen" }),
  ).toBeVisible();
});
