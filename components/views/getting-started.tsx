"use client";

/** What a new user sees before any telemetry arrived: how to get some. */
export function GettingStarted() {
  const origin = typeof window === "undefined" ? "http://localhost:3000" : window.location.origin;
  return (
    <section className="notice" aria-labelledby="getting-started">
      <h2 id="getting-started">No telemetry yet</h2>
      <p>Switchyard shows what your inference cluster reports. To get data on this page:</p>
      <ol>
        <li>
          Point a source at the ingest endpoint <code>{origin}/api/ingest</code> with your ingest token (printed when
          the dashboard started).
        </li>
        <li>
          Or post a test event by hand:
          <pre>{`curl -X POST ${origin}/api/ingest \\
  -H "Authorization: Bearer $SWITCHYARD_INGEST_TOKEN" \\
  -H "Content-Type: application/x-ndjson" \\
  --data-binary '{"id":"w1-up","kind":"worker.up","ts":'$(date +%s000)',"worker_id":"w1","role":"aggregated","model":"demo","kv_total_blocks":8192,"block_size":16}'`}</pre>
        </li>
      </ol>
      <p className="sub">The README documents the event format (switchyard.telemetry.v1).</p>
    </section>
  );
}
