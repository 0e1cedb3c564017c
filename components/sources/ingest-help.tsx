"use client";
import Link from "next/link";
import { useEffect, useState } from "react";

/** How a new sender connects: the ingest and OTLP URLs, a curl line, and where its token comes from. */
export function IngestHelp() {
  const [origin, setOrigin] = useState("http://localhost:3000");
  useEffect(() => setOrigin(window.location.origin), []);
  // Stamped and named by the shell at the time it runs, so the sample shows on the overview at once and a second run is
  // a new event rather than a duplicate.
  const line = `{"id":"w1-s-'$(date +%s000)'","kind":"worker.stats","ts":'$(date +%s000)',"worker_id":"w1","kv_active_blocks":10,"kv_total_blocks":100,"requests_running":1,"requests_waiting":0,"prefix_query_tokens":"0","prefix_hit_tokens":"0"}`;
  return (
    <div className="sources-help">
      <dl className="sources-urls">
        <dt>Ingest (switchyard.telemetry.v1, NDJSON)</dt>
        <dd>
          <code data-testid="ingest-url">{origin}/api/ingest</code>
        </dd>
        <dt>Harness OTLP logs (Claude Code, Codex)</dt>
        <dd>
          <code>{origin}/api/otlp/v1/logs</code>
        </dd>
      </dl>
      <p>
        Every sender needs a token with the <strong>ingest</strong> scope: an admin creates one under{" "}
        <Link href="/admin">Admin → API tokens</Link> (shown once). The token from <code>SWITCHYARD_INGEST_TOKEN</code>,
        or the one printed when the server first started, works too.
      </p>
      <pre aria-label="Example ingest request">{`curl -X POST ${origin}/api/ingest \\
  -H "Authorization: Bearer $SWITCHYARD_TOKEN" \\
  -H "Content-Type: application/x-ndjson" \\
  --data-binary '${line}'`}</pre>
    </div>
  );
}
