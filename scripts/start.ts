// `npm start`: build when needed, then run the dashboard with a demo ingest token for this run.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { buildIfNeeded } from "./build-if-needed";

buildIfNeeded();

const port = process.env.PORT || "3000";
const token = process.env.SWITCHYARD_INGEST_TOKEN || `sy_demo_${randomBytes(18).toString("base64url")}`;
const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", SWITCHYARD_INGEST_TOKEN: token },
});

console.log(`\nDemo ingest token for this run: ${token}`);
console.log(`Post telemetry:  curl -X POST http://localhost:${port}/api/ingest -H "Authorization: Bearer ${token}" -H "Content-Type: application/x-ndjson" --data-binary @events.ndjson\n`);

const forward = (sig: NodeJS.Signals) => child.kill(sig);
process.on("SIGINT", forward);
process.on("SIGTERM", forward);
child.on("exit", (code) => process.exit(code ?? 0));
