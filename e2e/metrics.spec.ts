import { expect, test } from "@playwright/test";
import { API_TOKEN, INGEST_TOKEN, uniq } from "./fixtures/telemetry";

// Switchyard's own metrics from the real server: ingest is stored by worker threads and routed through Next's bundle,
// yet counted in the one registry /metrics serves.
test("GET /metrics counts posted events by kind and sender for a token or a signed-in session, and refuses others", async ({
  page,
  request,
  playwright,
}) => {
  const source = uniq("metrics-sender");
  const events = [1, 2, 3].map((i) =>
    JSON.stringify({ id: `${source}-${i}`, kind: "kv.cleared", ts: Date.now(), worker_id: `${source}-w` }),
  );
  const posted = await request.post("/api/ingest", {
    headers: {
      authorization: `Bearer ${INGEST_TOKEN}`,
      "content-type": "application/x-ndjson",
      "x-switchyard-source": source,
    },
    data: [...events, "{not json"].join("\n"),
  });
  expect(posted.status()).toBe(200);

  // A context without the signed-in admin's cookies.
  const anonymous = await playwright.request.newContext({
    baseURL: test.info().project.use.baseURL,
    storageState: { cookies: [], origins: [] },
  });
  const refused = await anonymous.get("/metrics");
  expect(refused.status()).toBe(401);
  const ingestOnly = await anonymous.get("/metrics", { headers: { authorization: `Bearer ${INGEST_TOKEN}` } });
  expect(ingestOnly.status()).toBe(401);
  await anonymous.dispose();

  const res = await request.get("/metrics", { headers: { authorization: `Bearer ${API_TOKEN}` } });
  expect(res.status()).toBe(200);
  const text = await res.text();
  expect(text).toContain(`switchyard_ingest_events_total{kind="kv.cleared",source="${source}",result="accepted"} 3`);
  expect(text).toContain(`switchyard_ingest_events_total{kind="unknown",source="${source}",result="rejected"} 1`);
  expect(text).toMatch(
    /switchyard_http_request_duration_seconds_count\{route="\/api\/ingest",method="POST",status="200"\} \d+/,
  );
  expect(text).toMatch(/switchyard_database_size_bytes\{file="main"\} \d+/);

  // The signed-in admin's browser session reads it too.
  const session = await page.request.get("/metrics");
  expect(session.status()).toBe(200);
  expect(await session.text()).toContain("switchyard_attribution_lag_seconds");
});
