import { expect, test, type Page } from "@playwright/test";
import { postEvents, uniq } from "./fixtures/telemetry";

/**
 * A two-minute session: main agent turns at 0 s, 40 s and 1 m 58 s, a 30 s Bash call started 1.2 s in (300 ms before
 * its turn's stream ended) with a reasoning span, and a subagent turn at 1 m.
 */
function seed(p: string, sid: string, t0: number): object[] {
  const request = (name: string, at: number, ms: number, o: object = {}) => ({
    id: `${p}-rq-${name}`,
    kind: "request",
    ts: at + ms,
    request_id: `${p}-${name}`,
    session_id: sid,
    trajectory_id: "main",
    harness: "claude_code",
    api: "messages",
    model: "m",
    worker_id: "w1",
    arrived_at: at,
    first_token_at: at + 400,
    finished_at: at + ms,
    input_tokens: 2_000,
    cached_tokens: 1_000,
    output_tokens: 50,
    status: "ok",
    ...o,
  });
  return [
    request("m1", t0, 1_500),
    {
      id: `${p}-tl-c1`,
      kind: "tool",
      ts: t0 + 31_200,
      session_id: sid,
      trajectory_id: "main",
      request_id: `${p}-m1`,
      tool_call_id: `${p}-c1`,
      name: "Bash",
      started_at: t0 + 1_200,
      ended_at: t0 + 31_200,
      status: "succeeded",
      output_tokens: 500,
    },
    {
      id: `${p}-rs-1`,
      kind: "reasoning",
      ts: t0 + 650,
      request_id: `${p}-m1`,
      tool_call_id: `${p}-c1`,
      tokens: 25,
      started_at: t0 + 500,
      ended_at: t0 + 650,
    },
    request("m2", t0 + 40_000, 1_000),
    request("s1", t0 + 60_000, 2_000, { trajectory_id: "sub-1", parent_trajectory_id: "main", worker_id: "w2" }),
    request("m3", t0 + 118_000, 2_000),
  ];
}

const span = (page: Page) => page.getByTestId("timeline-span");
const zoomOf = (page: Page) => new URL(page.url()).searchParams.get("zoom");

test("session trace: a time axis from the session's start, details on hover and focus, zoom by buttons, drag and keys, kept in the URL", async ({
  page,
  request,
}) => {
  const p = uniq("tl");
  const sid = `${p}-session`;
  const t0 = Date.now() - 600_000;
  await postEvents(request, seed(p, sid, t0));

  await page.goto(`/sessions/${encodeURIComponent(sid)}`);
  const axis = page.getByTestId("time-axis");
  await expect(axis).toHaveAccessibleName("Time axis from 0 s to 2 m since the session started", { timeout: 30_000 });
  await expect(axis).toContainText("1 m 30 s");
  await expect(span(page)).toHaveText(/^whole session, 2 m/);

  // Hover: every kind of bar says what it is.
  const tip = page.getByRole("tooltip");
  await page.getByTestId(`tool:${p}-c1`).hover();
  await expect(tip).toContainText("Tool Bash");
  for (const text of [
    "Started1.2 s",
    "Duration30.0 s",
    "Statussucceeded",
    "Early dispatch300 ms before the stream ended",
  ])
    await expect(tip).toContainText(text);
  await page.getByTestId(`turn:${p}-rq-m2`).hover();
  await expect(tip).toContainText(`Turn ${p}-m2 · main agent`);
  for (const text of [
    "Arrived40 s",
    "Queue (est.)",
    "Prefill",
    "Decode600 ms",
    "Tokens2,000 in (1,000 cached) · 50 out",
    "Workerw1",
  ])
    await expect(tip).toContainText(text);
  await page.getByTestId(`turn:${p}-rq-s1`).hover();
  await expect(tip).toContainText(`Turn ${p}-s1 · subagent sub-1`);
  await page.getByTestId(new RegExp(`^reasoning:${p}-m1:`)).hover();
  await expect(tip).toContainText(`Explainstool call ${p}-c1`);

  // A click on a turn's bar selects it.
  await page.getByTestId(`turn:${p}-rq-m2`).click();
  await expect(page.getByTestId("turn-details").getByRole("heading", { name: `Turn ${p}-m2` })).toBeVisible();

  // Zoom in: the middle half; the axis still counts from the session's start; the URL keeps it across a reload.
  await page.getByRole("button", { name: "Zoom in" }).click();
  await expect(span(page)).toHaveText(/^30 s – 1 m 30 s of 2 m/);
  await expect(axis).toHaveAccessibleName("Time axis from 30 s to 1 m 30 s since the session started");
  await expect(page.getByTestId(`turn:${p}-rq-m1`)).toHaveCount(0);
  await expect(page.getByTestId(`turn:${p}-rq-m2`)).toBeVisible();
  expect(zoomOf(page)).toBe("30000-90000");
  await page.reload();
  await expect(span(page)).toHaveText(/^30 s – 1 m 30 s of 2 m/, { timeout: 30_000 });
  await page.getByRole("button", { name: "Reset zoom" }).click();
  await expect(span(page)).toHaveText(/^whole session/);
  expect(zoomOf(page)).toBeNull();

  // Drag across the main lane from 120 px to 360 px of 960: 15 s to 45 s.
  const lane = page.getByRole("group", { name: /^main main:/ });
  const box = (await lane.boundingBox())!;
  await page.mouse.move(box.x + 120, box.y + 3);
  await page.mouse.down();
  await page.mouse.move(box.x + 240, box.y + 3, { steps: 4 });
  await expect(page.getByTestId("zoom-selection")).toBeVisible();
  await page.mouse.move(box.x + 360, box.y + 3, { steps: 4 });
  await page.mouse.up();
  await expect(span(page)).toHaveText(/^15 s – 45 s of 2 m/);
  expect(zoomOf(page)).toBe("15000-45000");
  await page.getByRole("button", { name: "Reset zoom" }).click();
  await expect(span(page)).toHaveText(/^whole session/);

  // Keyboard: Tab into the main lane, step through its bars, Enter selects a turn, + zooms, 0 resets.
  await page.getByRole("button", { name: "Zoom in" }).focus();
  await page.keyboard.press("Tab");
  await expect(lane).toBeFocused();
  await expect(tip).toContainText(`Turn ${p}-m1`);
  await page.keyboard.press("ArrowRight");
  await expect(tip).toContainText("Reasoning");
  await page.keyboard.press("ArrowRight");
  await expect(tip).toContainText("Tool Bash");
  await page.keyboard.press("ArrowRight");
  await expect(tip).toContainText(`Turn ${p}-m2`);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("turn-details").getByRole("heading", { name: `Turn ${p}-m2` })).toBeVisible();
  await page.keyboard.press("+");
  await expect(span(page)).not.toHaveText(/^whole session/);
  await expect(page.getByRole("button", { name: "Reset zoom" })).toBeEnabled();
  await page.keyboard.press("0");
  await expect(span(page)).toHaveText(/^whole session/);
});
