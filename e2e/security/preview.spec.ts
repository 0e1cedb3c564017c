import { expect, test } from "@playwright/test";
import { API_TOKEN, postEvents, uniq } from "../fixtures/telemetry";

// Issue 32's preview probe replayed over HTTP: 256 workers of 4,194,304 one-token blocks over 24 h took the dashboard
// from 0.85 to 17.9 GB in three minutes. It must be refused at once with the estimate and the limit.

test("the probe's preview (256 workers × 4,194,304 blocks of 1 token, 24 h) is a fast 422 naming the limit", async ({
  request,
}) => {
  const tag = uniq("budget");
  const now = Date.now();
  await postEvents(request, [
    {
      id: `${tag}-r`,
      kind: "request",
      ts: now - 60_000,
      request_id: `${tag}-r`,
      session_id: `${tag}-s`,
      api: "chat_completions",
      model: "m",
      arrived_at: now - 61_000,
      first_token_at: now - 60_500,
      finished_at: now - 60_000,
      input_tokens: 64,
      cached_tokens: 0,
      output_tokens: 4,
      status: "ok",
      block_size: 16,
      sequence_hashes: ["1", "2", "3", "4"],
    },
  ]);
  const started = Date.now();
  const res = await request.post("/api/policies/preview", {
    headers: { Authorization: `Bearer ${API_TOKEN}` },
    data: {
      kind: "retention",
      document: {},
      window: { from: now - 86_400_000, to: now },
      cluster: { workers: 256, kv_total_blocks: 4_194_304, block_size: 1 },
    },
    timeout: 30_000,
  });
  expect(res.status(), await res.text()).toBe(422);
  const body = (await res.json()) as { error: string; estimate_mb: number; limit_mb: number };
  expect(body.error).toMatch(
    /would need about [\d,]+ MB of memory; the limit is [\d,]+ MB \(SWITCHYARD_PREVIEW_MEMORY_MB\)/,
  );
  expect(body.estimate_mb).toBeGreaterThan(body.limit_mb);
  // Refused before any replay: seconds, not minutes (a loaded CI machine included).
  expect(Date.now() - started).toBeLessThan(15_000);
  // A body over the limit is refused before it is read on.
  const big = await request.post("/api/policies/preview", {
    headers: { Authorization: `Bearer ${API_TOKEN}`, "Content-Type": "application/json" },
    data: JSON.stringify({ kind: "retention", document: { pad: "x".repeat(1_100_000) } }),
  });
  expect(big.status()).toBe(413);
});
