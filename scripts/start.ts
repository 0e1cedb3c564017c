// `npm start` (after scripts/build-if-needed.mjs has built what was missing): run the dashboard and the simulated
// cluster as two processes that talk only over HTTP (telemetry into /api/ingest, policies into the simulator's
// control API).
// Extra arguments go to the simulator: `npm start -- --scenario preamble --speed 10`.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cannotListen } from "../lib/free-port";
import { nodeArgs, type CompiledName } from "../server/compiled";
import { processEnv } from "../server/memory-budget";
import { fleetControlPath } from "../server/sim/fleet-names";
import { scopeParts } from "../lib/policy-scope";
import { planStart } from "./start-args";
import { waitForHealth } from "./wait-for-health";

const planned = planStart(process.argv.slice(2), process.env, {
  ingestToken: `sy_demo_${randomBytes(18).toString("base64url")}`,
  controlToken: `sy_ctl_${randomBytes(18).toString("base64url")}`,
});
if (!planned.ok) {
  console.error(`npm start: ${planned.error}`);
  process.exit(2);
}
const plan = planned.plan;
// A local admin for the demo with a password made for this run only (every start replaces it).
const demoPassword = randomBytes(18).toString("base64url");

const children: { name: string; child: ChildProcess }[] = [];
/** Started by `npm run dev` (scripts/dev.mjs): Next in development mode, children restarted on rebuilds. */
const dev = process.env.SWITCHYARD_DEV === "1";
let stopping = false;
let failed = false;

// Each child runs in its own process group, so a terminal's Ctrl-C (sent to the whole foreground group) reaches only
// this script, which stops the two in order. The IPC channel stops a child whose supervisor died without doing so.
function run(name: string, which: CompiledName, args: string[], env: Record<string, string>): ChildProcess {
  // `npm run dev`: node restarts a child whenever its bundle is rebuilt.
  const watch = dev ? ["--watch"] : [];
  const child = spawn(process.execPath, [...watch, ...nodeArgs(which), ...args], {
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    detached: true,
    env: {
      ...process.env,
      ...processEnv(which),
      NODE_ENV: dev ? "development" : "production",
      NEXT_TELEMETRY_DISABLED: "1",
      ...env,
    },
  });
  child.on("exit", (code, signal) => {
    if (code !== 0) {
      failed = true;
      if (stopping) console.error(`${name} stopped with ${signal ?? `exit code ${code}`}`);
    }
    if (!stopping) {
      console.error(`${name} exited (${signal ?? code}); stopping Switchyard`);
      stop(code ?? 1);
    }
  });
  children.push({ name, child });
  return child;
}

const running = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

/**
 * Stop the simulator first (it flushes what it holds to the dashboard, with a short deadline of its own), then the
 * dashboard, then exit: non-zero when asked to or when a child did not stop cleanly.
 */
function stop(code: number) {
  if (stopping) return;
  stopping = true;
  setTimeout(() => {
    for (const { name, child } of children) {
      if (!running(child)) continue;
      console.error(`${name} did not stop within 15 s; killing it`);
      child.kill("SIGKILL");
    }
    process.exit(code || 1);
  }, 15_000).unref();
  const next = (i: number) => {
    const c = children[i]?.child;
    if (!c) return process.exit(code || (failed ? 1 : 0));
    if (!running(c)) return next(i - 1);
    c.once("exit", () => next(i - 1));
    c.kill("SIGTERM");
  };
  next(children.length - 1);
}

/**
 * Refuse to start when the dashboard's or the simulator's port is taken: the health check would pass against whatever
 * listens there (another Switchyard: the simulator would post into it), and the dashboard would fail only later.
 */
async function checkPorts(): Promise<string | null> {
  const host = process.env.HOST || "0.0.0.0";
  const dashboard = await cannotListen(plan.port, host);
  if (dashboard)
    return `port ${plan.port} is not free (${dashboard}): another Switchyard or another program may be running there; stop it, or start on another port: PORT=${plan.port + 10} npm start`;
  const control = await cannotListen(plan.controlPort, plan.controlHost);
  if (control)
    return `the simulator's control port ${plan.controlPort} is not free (${control}): stop what listens there, or set SWITCHYARD_SIM_CONTROL_PORT to another port`;
  return null;
}

/** The banner's line(s) naming the simulator's control API: one per cluster of a fleet. */
function controlApis(controlUrl: string): string {
  if (!plan.fleet) return `simulated cluster control API: ${controlUrl}/control/policies`;
  const clusters = [...new Set(plan.fleet.map((s) => scopeParts(s).cluster))];
  const urls = clusters.map((c) => `${c}: ${controlUrl}${fleetControlPath(c)}/control/policies`);
  return `simulated fleet's control APIs: ${urls.join(", ")}`;
}

async function main() {
  const taken = await checkPorts();
  if (taken) {
    console.error(`npm start: ${taken}`);
    process.exit(2);
  }
  process.on("SIGINT", () => stop(0));
  process.on("SIGTERM", () => stop(0));
  process.on("SIGHUP", () => stop(0));
  run("dashboard", "dashboard", [], {
    PORT: String(plan.port),
    SWITCHYARD_INGEST_TOKEN: plan.ingestToken,
    SWITCHYARD_SIM_CONTROL_URL: plan.controlUrl,
    SWITCHYARD_SIM_CONTROL_TOKEN: plan.controlToken,
    ...(plan.fleet ? { SWITCHYARD_SIM_CLUSTERS: plan.fleet.join(",") } : {}),
    SWITCHYARD_DEMO_ADMIN_PASSWORD: demoPassword,
  });
  if (!(await waitForHealth(`http://localhost:${plan.port}/api/health`, 120_000, () => stopping))) {
    if (!stopping) {
      console.error("the dashboard did not become healthy within 2 minutes; stopping");
      stop(1);
    }
    return;
  }
  run("simulated cluster", "sim", plan.simArgs, {
    SWITCHYARD_INGEST_TOKEN: plan.ingestToken,
    SWITCHYARD_CONTROL_TOKEN: plan.controlToken,
  });
  const { port, controlUrl, controlToken, ingestToken } = plan;
  // From this process's start (a built tree: no build ran), through the dashboard's health check and the simulator's start.
  const readyIn = (performance.now() / 1000).toFixed(1);
  console.log(`
Switchyard is running (ready in ${readyIn} s): open http://localhost:${port}/login#username=demo&password=${demoPassword}
  (signs you in as the demo admin "demo" with password ${demoPassword}, made for this run only)
  ${controlApis(controlUrl)} (Bearer ${controlToken})
  demo ingest token for this run: ${ingestToken}
  post telemetry: curl -X POST http://localhost:${port}/api/ingest -H "Authorization: Bearer ${ingestToken}" \\
                    -H "Content-Type: application/x-ndjson" --data-binary @events.ndjson
Press Ctrl-C to stop both.
`);
}

void main();
