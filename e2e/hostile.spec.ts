import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { apiQuery, INGEST_TOKEN, postEvents, uniq } from "./fixtures/telemetry";

const MiB = 1024 * 1024;

/** Watch for any script the page should never run: dialogs and the payloads' global marker. */
function trapScripts(page: Page): { dialogs: string[] } {
  const seen = { dialogs: [] as string[] };
  page.on("dialog", (d) => {
    seen.dialogs.push(d.message());
    void d.dismiss();
  });
  return seen;
}

async function ingest(request: APIRequestContext, body: string, contentType = "application/x-ndjson") {
  return request.post("/api/ingest", {
    headers: { Authorization: `Bearer ${INGEST_TOKEN}`, "Content-Type": contentType },
    data: body,
  });
}

test("a session id, tool name and model name carrying HTML are shown as text and never run", async ({ page }) => {
  const seen = trapScripts(page);
  const tag = uniq("x");
  const sid = `<img src=x onerror="window.__xss=1;alert(1)">${tag}`;
  const tool = `<script>window.__xss=2;alert(2)</script><b>${tag}</b>`;
  const model = `<svg onload="window.__xss=3">${tag}`;
  const now = Date.now();
  await postEvents(page.request, [
    {
      id: `${tag}-req`,
      kind: "request",
      ts: now,
      request_id: `${tag}-r1`,
      session_id: sid,
      harness: "claude_code",
      api: "messages",
      model,
      arrived_at: now - 2_000,
      first_token_at: now - 1_500,
      finished_at: now - 1_000,
      input_tokens: 100,
      cached_tokens: 0,
      output_tokens: 10,
      status: "ok",
    },
    {
      id: `${tag}-tool`,
      kind: "tool",
      ts: now,
      session_id: sid,
      request_id: `${tag}-r1`,
      tool_call_id: `${tag}-c1`,
      name: tool,
      started_at: now - 900,
      ended_at: now - 100,
      status: "succeeded",
    },
  ]);

  await page.goto("/sessions?range=15m");
  await page.getByRole("searchbox", { name: "Session id" }).fill(tag);
  const link = page.getByRole("table", { name: "Sessions" }).getByRole("link", { name: sid });
  await expect(link).toBeVisible();
  await expect(link).toHaveText(sid);
  await link.click();
  await expect(page.getByRole("heading", { name: `Session ${sid}`, level: 1 })).toBeVisible();
  await expect(page.getByTestId("session-lanes")).toBeVisible();
  // The tool name is in the bar's hover details as text: the markup is escaped, no element was created from it.
  await page.getByTestId(`tool:${tag}-c1`).hover();
  await expect(page.getByRole("tooltip")).toContainText(`Tool ${tool} · ${tag}-c1`);
  expect(await page.locator("img[src='x'], svg[onload]").count()).toBe(0);
  expect(await page.locator("b", { hasText: tag }).count()).toBe(0);
  expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
  expect(seen.dialogs).toEqual([]);
});

test("injection-shaped filter values answer without error and without extra rows; unknown sort keys are refused", async ({
  request,
}) => {
  const range = { preset: "24h" };
  for (const value of [
    "' OR 1=1 --",
    '" OR ""="',
    "%",
    "_",
    "*",
    "'; DROP TABLE requests; --",
    "\\",
    "\u0000",
    "${7*7}",
    "<script>",
  ]) {
    // search is a literal substring of the id: only ids that really contain the value come back
    const found = await apiQuery<{ items: { sessionId: string }[] }>(request, "sessions.list", {
      range,
      search: value,
    });
    expect(
      found.items.filter((r) => !r.sessionId.includes(value)),
      `search=${JSON.stringify(value)}`,
    ).toEqual([]);
    for (const field of ["harness", "sessionType", "workerId"]) {
      const out = await apiQuery<{ items: unknown[] }>(request, "sessions.list", { range, [field]: value });
      expect(out.items, `${field}=${JSON.stringify(value)}`).toEqual([]);
    }
  }
  const res = await request.get(
    `/api/trpc/sessions.list?input=${encodeURIComponent(JSON.stringify({ json: { range, sort: "lastAt; DROP TABLE requests" } }))}`,
  );
  expect(res.status()).toBe(400);
  const body = (await res.json()) as { error: { json: { data: { issues: { path: string }[] } } } };
  expect(body.error.json.data.issues.map((i) => i.path)).toEqual(["sort"]);
  expect(
    (await apiQuery<{ items: unknown[] }>(request, "sessions.list", { range, limit: 1 })).items.length,
  ).toBeLessThanOrEqual(1);
});

test("oversized bodies are refused and nothing of them is stored", async ({ request }) => {
  const tag = uniq("big");
  const line = (i: number) =>
    JSON.stringify({
      id: `${tag}-${i}`,
      kind: "tool",
      ts: Date.now(),
      session_id: tag,
      tool_call_id: `${tag}-${i}`,
      name: "Bash".padEnd(900, "x"),
      started_at: Date.now(),
      status: "running",
    });
  const lines: string[] = [];
  for (let size = 0, i = 0; size <= 9 * MiB; i++) {
    const l = line(i);
    lines.push(l);
    size += l.length + 1;
  }
  const res = await ingest(request, lines.join("\n"));
  expect(res.status()).toBe(413);
  const exp = await request.get(`/api/sessions/${encodeURIComponent(tag)}/export`);
  expect(exp.status()).toBe(404);
  const trpc = await request.post("/api/trpc/policies.publish", {
    data: { json: { kind: "frontend", document: {}, baseVersion: null, comment: "x".repeat(2 * MiB) } },
  });
  expect(trpc.status()).toBe(413);
  const login = await request.post("/api/auth/login", { data: { username: "a", password: "p".repeat(64 * 1024) } });
  expect(login.status()).toBe(413);
  const overlong = await ingest(
    request,
    JSON.stringify({
      id: `${tag}-long`,
      kind: "tool",
      ts: Date.now(),
      session_id: "s".repeat(10_000),
      tool_call_id: "c",
      name: "n",
      started_at: Date.now(),
      status: "running",
    }),
  );
  expect(overlong.status()).toBe(200);
  expect(((await overlong.json()) as { rejected: number }).rejected).toBe(1);
});

/** A small seeded PRNG so a failure can be replayed. */
function prng(seed: number) {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

/** One malformed line: broken JSON, wrong types, missing fields, huge or odd values — never a valid event. */
function junk(rand: () => number, i: number): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
  // values no id, time or name field accepts
  const odd = () =>
    pick<unknown>([
      null,
      -1,
      1e308,
      "",
      "x".repeat(20_000),
      [],
      {},
      [[[[]]]],
      true,
      { __proto__: { polluted: 1 } },
      -0.5,
    ]);
  switch (Math.floor(rand() * 8)) {
    case 0:
      return `{"id":"j${i}","kind":"tool",`.slice(0, Math.floor(rand() * 30));
    case 1:
      return JSON.stringify(odd());
    case 2:
      return JSON.stringify({
        id: `j${i}`,
        kind: pick(["", "tool ", "TOOL", "worker.up.x", "__proto__", "constructor"]),
        ts: Date.now(),
      });
    case 3:
      return JSON.stringify({
        id: `j${i}`,
        kind: "tool",
        ts: Date.now(),
        session_id: odd(),
        tool_call_id: "c",
        name: "n",
        started_at: Date.now(),
        status: "running",
      });
    case 4:
      return JSON.stringify({
        id: `j${i}`,
        kind: "request",
        ts: odd(),
        request_id: "r",
        api: "messages",
        model: "m",
        arrived_at: 1,
        input_tokens: 1,
        cached_tokens: 2,
        output_tokens: 0,
        status: "ok",
      });
    case 5:
      return JSON.stringify({
        id: odd(),
        kind: "kv.stored",
        ts: Date.now(),
        worker_id: "w",
        block_hashes: pick([[1], ["-1"], [], Array(20_000).fill("1")]),
        parent_hash: null,
      });
    case 6:
      return Array.from({ length: 1 + Math.floor(rand() * 200) }, () =>
        String.fromCharCode(32 + Math.floor(rand() * 95)),
      ).join("");
    default:
      return JSON.stringify({
        id: `j${i}`,
        kind: "worker.stats",
        ts: Date.now(),
        worker_id: "w",
        kv_active_blocks: 10,
        kv_total_blocks: 5,
        requests_running: 0,
        requests_waiting: 0,
        prefix_query_tokens: "x",
        prefix_hit_tokens: "1",
      });
  }
}

test("thousands of random malformed events never crash the server and never lose the valid events mixed in", async ({
  request,
}) => {
  test.setTimeout(120_000);
  const rand = prng(20261129);
  const sid = uniq("fuzz");
  const valid: string[] = [];
  for (let batch = 0; batch < 5; batch++) {
    const lines: string[] = [];
    const expectedValid = new Set<number>();
    for (let i = 0; i < 1_000; i++) {
      if (i % 40 === 7) {
        const id = `${sid}-${batch}-${i}`;
        valid.push(id);
        expectedValid.add(i);
        lines.push(
          JSON.stringify({
            id,
            kind: "tool",
            ts: Date.now(),
            session_id: sid,
            tool_call_id: id,
            name: "Read",
            started_at: Date.now() - 10,
            ended_at: Date.now(),
            status: "succeeded",
          }),
        );
      } else {
        lines.push(junk(rand, batch * 1_000 + i));
      }
    }
    const res = await ingest(request, lines.join("\n"));
    expect(res.status()).toBe(200);
    const reply = (await res.json()) as {
      accepted: number;
      rejected: number;
      items: { line: number; status: string }[];
    };
    expect(reply.accepted).toBe(expectedValid.size);
    expect(reply.items.filter((it) => it.status === "accepted").map((it) => it.line - 1)).toEqual([...expectedValid]);
    expect((await request.get("/api/health")).status()).toBe(200);
  }
  const arrayBody = await ingest(
    request,
    `[${Array.from({ length: 500 }, (_, i) => junk(rand, 90_000 + i)).join(",")}]`,
    "application/json",
  );
  expect([200, 400]).toContain(arrayBody.status());
  expect((await request.get("/api/health")).status()).toBe(200);

  const exp = await request.get(`/api/sessions/${encodeURIComponent(sid)}/export`);
  expect(exp.status()).toBe(200);
  const doc = (await exp.json()) as { trajectories: { tools: { tool_call_id: string }[] }[] };
  expect(doc.trajectories.flatMap((t) => t.tools.map((x) => x.tool_call_id)).sort()).toEqual([...valid].sort());
});
