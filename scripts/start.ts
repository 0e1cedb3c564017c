// `npm start`: build when needed, then run the dashboard and the simulated cluster as two processes
// that talk only over HTTP (telemetry into /api/ingest, policies into the simulator's control API).
// Extra arguments go to the simulator: `npm start -- --scenario preamble --speed 10`.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { buildIfNeeded } from "./build-if-needed";
import { waitForHealth } from "./wait-for-health";

const port = Number(process.env.PORT || 3000);
const controlPort = Number(process.env.SWITCHYARD_SIM_CONTROL_PORT || port + 1);
const ingestToken = process.env.SWITCHYARD_INGEST_TOKEN || `sy_demo_${randomBytes(18).toString("base64url")}`;
const controlToken = process.env.SWITCHYARD_CONTROL_TOKEN || `sy_ctl_${randomBytes(18).toString("base64url")}`;
// A local admin for the demo with a password made for this run only (every start replaces it).
const demoPassword = randomBytes(18).toString("base64url");
const simArgs = process.argv.slice(2);

const children: ChildProcess[] = [];
let stopping = false;

function run(name: string, script: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...env },
  });
  child.on("exit", (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${signal ?? code}); stopping Switchyard`);
      stop(code ?? 1);
    }
  });
  children.push(child);
  return child;
}

const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

/** Stop the simulator first (so its last batch is delivered), then the dashboard, then exit. */
function stop(code: number) {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(code), 10_000).unref();
  const next = (i: number) => {
    const c = children[i];
    if (!c) return process.exit(code);
    if (!running(c)) return next(i - 1);
    c.once("exit", () => next(i - 1));
    c.kill("SIGTERM");
  };
  next(children.length - 1);
}

async function main() {
  buildIfNeeded();
  process.on("SIGINT", () => stop(0));
  process.on("SIGTERM", () => stop(0));
  run("dashboard", "server/main.ts", [], {
    PORT: String(port),
    SWITCHYARD_INGEST_TOKEN: ingestToken,
    SWITCHYARD_SIM_CONTROL_URL: `http://127.0.0.1:${controlPort}`,
    SWITCHYARD_SIM_CONTROL_TOKEN: controlToken,
    SWITCHYARD_DEMO_ADMIN_PASSWORD: demoPassword,
  });
  if (!(await waitForHealth(`http://localhost:${port}/api/health`, 120_000, () => stopping))) {
    if (!stopping) {
      console.error("the dashboard did not become healthy within 2 minutes; stopping");
      stop(1);
    }
    return;
  }
  run(
    "simulated cluster",
    "server/sim/cli.ts",
    ["--dashboard", `http://localhost:${port}`, "--control-port", String(controlPort), ...simArgs],
    { SWITCHYARD_INGEST_TOKEN: ingestToken, SWITCHYARD_CONTROL_TOKEN: controlToken },
  );
  console.log(`
Switchyard is running: open http://localhost:${port}/login#username=demo&password=${demoPassword}
  (signs you in as the demo admin "demo" with password ${demoPassword}, made for this run only)
  simulated cluster control API: http://127.0.0.1:${controlPort}/control/policies (Bearer ${controlToken})
  demo ingest token for this run: ${ingestToken}
  post telemetry: curl -X POST http://localhost:${port}/api/ingest -H "Authorization: Bearer ${ingestToken}" \\
                    -H "Content-Type: application/x-ndjson" --data-binary @events.ndjson
Press Ctrl-C to stop both.
`);
}

void main();
