// The settings `npm start` shares between its two processes, from its arguments and environment, without I/O.
// The demo wires the dashboard and the simulator to each other, so an argument after `--` that names one end of
// that wiring must reach both ends (or be refused): otherwise the simulator listens where the dashboard never pushes.
import { FLEET_SCOPES } from "../server/sim/fleet-names";

export type StartPlan = {
  port: number;
  /** Where the simulator serves its control API, and where the dashboard pushes policies. */
  controlHost: string;
  controlPort: number;
  controlUrl: string;
  ingestToken: string;
  controlToken: string;
  /** Arguments for the simulator, the shared ones included exactly once. */
  simArgs: string[];
  /** `--scenario fleet`: its policy scopes, each a policy target of its own (null: one cluster, the default). */
  fleet: readonly string[] | null;
};

export type StartPlanResult = { ok: true; plan: StartPlan } | { ok: false; error: string };

/** Generated values used when neither an argument nor the environment sets them. */
export type StartDefaults = { ingestToken: string; controlToken: string };

const SHARED = new Set(["--dashboard", "--token", "--control-port", "--control-host", "--control-token"]);
const TOKEN = /^[\x21-\x7e]{16,256}$/;

/** Work out one consistent configuration for both processes, or an error naming the argument. */
export function planStart(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  defaults: StartDefaults,
): StartPlanResult {
  const shared = new Map<string, string>();
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    const eq = raw.startsWith("--") ? raw.indexOf("=") : -1;
    const flag = eq > 0 ? raw.slice(0, eq) : raw;
    if (!SHARED.has(flag)) {
      rest.push(raw);
      continue;
    }
    const value = eq > 0 ? raw.slice(eq + 1) : argv[++i];
    if (value === undefined || value === "") return { ok: false, error: `${flag} needs a value` };
    shared.set(flag, value);
  }
  if (shared.has("--dashboard")) {
    return {
      ok: false,
      error:
        "--dashboard: npm start sends the simulator to the dashboard it starts (set PORT to move it); to feed another dashboard, run `npm run sim -- --dashboard URL`",
    };
  }

  const port = Number(env.PORT || 3000);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return { ok: false, error: `PORT=${JSON.stringify(env.PORT)}: must be a port number (1-65535)` };
  const portText = shared.get("--control-port") ?? (env.SWITCHYARD_SIM_CONTROL_PORT || String(port + 1));
  const controlPort = Number(portText);
  const portSource = shared.has("--control-port") ? "--control-port" : "SWITCHYARD_SIM_CONTROL_PORT";
  if (!/^\d+$/.test(portText) || controlPort < 1 || controlPort > 65535) {
    return {
      ok: false,
      error: `${portSource} ${portText}: must be a port number (1-65535); the dashboard must know it in advance, so 0 (any free port) does not work here`,
    };
  }
  if (controlPort === port)
    return { ok: false, error: `${portSource} ${portText}: is the dashboard's port (PORT); pick another` };

  const controlHost = shared.get("--control-host") ?? "127.0.0.1";
  const ingestToken = shared.get("--token") ?? (env.SWITCHYARD_INGEST_TOKEN || defaults.ingestToken);
  const controlToken = shared.get("--control-token") ?? (env.SWITCHYARD_CONTROL_TOKEN || defaults.controlToken);
  const tokens = [
    [shared.has("--token") ? "--token" : "SWITCHYARD_INGEST_TOKEN", ingestToken],
    [shared.has("--control-token") ? "--control-token" : "SWITCHYARD_CONTROL_TOKEN", controlToken],
  ] as const;
  for (const [name, value] of tokens) {
    if (!TOKEN.test(value))
      return { ok: false, error: `${name}: must be 16 to 256 printable ASCII characters without spaces` };
  }
  const scenarioAt = rest.findLastIndex((a) => a === "--scenario" || a.startsWith("--scenario="));
  const scenario =
    scenarioAt < 0
      ? null
      : rest[scenarioAt]!.startsWith("--scenario=")
        ? rest[scenarioAt]!.slice(11)
        : rest[scenarioAt + 1];
  const reachable = controlHost === "0.0.0.0" || controlHost === "::" ? "127.0.0.1" : controlHost;
  const urlHost = reachable.includes(":") ? `[${reachable}]` : reachable;
  return {
    ok: true,
    plan: {
      port,
      controlHost,
      controlPort,
      controlUrl: `http://${urlHost}:${controlPort}`,
      ingestToken,
      controlToken,
      simArgs: [
        "--dashboard",
        `http://localhost:${port}`,
        "--control-host",
        controlHost,
        "--control-port",
        String(controlPort),
        ...rest,
      ],
      fleet: scenario === "fleet" ? FLEET_SCOPES : null,
    },
  };
}
